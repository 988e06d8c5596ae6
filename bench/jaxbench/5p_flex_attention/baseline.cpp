// Causal attention with an additive score bias as PyTorch eager runs it: the ops of JAXBench's
// workload, one by one (scores, scale, bias broadcast over the batch, masked fill from a
// materialised tril mask, softmax, weighted sum of values).
#include <ATen/ATen.h>
#include <kforge/torch_view.h>

#include <cmath>

#include "kforge_task.h"

extern "C" void kernel(const float* q, const float* k, const float* v, const float* rel_pos_bias, float* out) {
  using namespace task;
  auto Q = kforge_torch::view(q, {B, H, S, D});
  auto K = kforge_torch::view(k, {B, H, S, D});
  auto V = kforge_torch::view(v, {B, H, S, D});
  auto Bias = kforge_torch::view(rel_pos_bias, {H, S, S});
  auto Out = kforge_torch::view(out, {B, H, S, D});
  const double sm_scale = 1.0 / std::sqrt(static_cast<double>(D));
  auto attn = at::matmul(Q, K.transpose(-2, -1)) * sm_scale;
  attn = attn + Bias.unsqueeze(0);
  auto causal = at::ones({S, S}, Q.options().dtype(at::kBool)).tril_();
  attn = at::where(causal, attn, at::scalar_tensor(mask_value, Q.options()));
  attn = at::softmax(attn, -1);
  at::matmul_out(Out, attn, V);
}
