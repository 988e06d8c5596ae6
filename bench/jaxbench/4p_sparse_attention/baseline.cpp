// Causal GQA attention as PyTorch eager runs it: the ops of JAXBench's workload, one by one
// (repeat the kv heads, dense q·kᵀ, mask with -1e30, softmax, p·v).
#include <ATen/ATen.h>
#include <kforge/torch_view.h>

#include "kforge_task.h"

extern "C" void kernel(const float* q, const float* k, const float* v, float* out) {
  using namespace task;
  auto Q = kforge_torch::view(q, {B, Hq, S, D});
  auto K = kforge_torch::view(k, {B, Hkv, S, D});
  auto V = kforge_torch::view(v, {B, Hkv, S, D});
  auto O = kforge_torch::view(out, {B, Hq, S, D});
  auto k_rep = at::repeat_interleave(K, Hq / Hkv, /*dim=*/1);
  auto v_rep = at::repeat_interleave(V, Hq / Hkv, /*dim=*/1);
  auto attn = at::matmul(Q, k_rep.transpose(-2, -1));
  auto causal = at::ones({S, S}, at::kBool).tril();
  attn = at::where(causal, attn, -1e30);
  attn = at::softmax(attn, -1);
  at::matmul_out(O, attn, v_rep);
}
