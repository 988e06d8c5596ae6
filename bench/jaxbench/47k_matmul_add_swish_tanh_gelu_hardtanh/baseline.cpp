// Matmul + Add + Swish + Tanh + GELU + Hardtanh as PyTorch eager runs it: matmul, bias add, add,
// swish (at::silu), tanh, the tanh GELU and the clip, each its own op.
#include <ATen/ATen.h>
#include <kforge/torch_view.h>

#include "kforge_task.h"

extern "C" void kernel(const float* x, const float* weight, const float* bias, const float* add_value, float* y) {
  using namespace task;
  auto X = kforge_torch::view(x, {M, K});
  auto Wt = kforge_torch::view(weight, {K, N});
  auto Y = kforge_torch::view(y, {M, N});
  auto h = at::matmul(X, Wt) + kforge_torch::view(bias, {N});
  h = h + kforge_torch::view(add_value, {N});
  h = at::silu(h);
  h = at::tanh(h);
  h = at::gelu(h, "tanh");
  at::clamp_out(Y, h, -1.0, 1.0);
}
