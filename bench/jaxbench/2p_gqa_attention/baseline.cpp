// Causal grouped-query attention as PyTorch eager runs it: the ops of JAXBench's workload, one by
// one (repeat the KV heads, move heads before the sequence, scores, scale, masked fill from a
// materialised tril mask, softmax, weighted sum of values, move heads back).
#include <ATen/ATen.h>
#include <kforge/torch_view.h>

#include <cmath>

#include "kforge_task.h"

extern "C" void kernel(const float* query, const float* key, const float* value, float* out) {
  using namespace task;
  const std::int64_t G = Hq / Hkv;
  auto Qin = kforge_torch::view(query, {B, S, Hq, D});
  auto Kin = kforge_torch::view(key, {B, S, Hkv, D});
  auto Vin = kforge_torch::view(value, {B, S, Hkv, D});
  auto Out = kforge_torch::view(out, {B, S, Hq, D});
  auto Krep = at::repeat_interleave(Kin.unsqueeze(3), G, 3).reshape({B, S, Hq, D});
  auto Vrep = at::repeat_interleave(Vin.unsqueeze(3), G, 3).reshape({B, S, Hq, D});
  auto q = Qin.transpose(1, 2);
  auto k = Krep.transpose(1, 2);
  auto v = Vrep.transpose(1, 2);
  const double scale = 1.0 / std::sqrt(static_cast<double>(D));
  auto attn = at::matmul(q, k.transpose(-2, -1)) * scale;
  auto mask = at::ones({S, S}, q.options()).tril_();
  attn = at::where(mask.to(at::kBool), attn, at::scalar_tensor(mask_value, q.options()));
  attn = at::softmax(attn, -1);
  Out.copy_(at::matmul(attn, v).transpose(1, 2));
}
