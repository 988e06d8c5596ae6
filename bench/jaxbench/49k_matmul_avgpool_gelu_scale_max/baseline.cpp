// Matmul + AvgPool + GELU + Scale + Max as PyTorch eager runs it: matmul, bias add, avg_pool1d,
// the tanh GELU, scale and max, each its own op.
#include <ATen/ATen.h>
#include <kforge/torch_view.h>

#include "kforge_task.h"

extern "C" void kernel(const float* x, const float* weight, const float* bias, float* y) {
  using namespace task;
  auto X = kforge_torch::view(x, {M, K});
  auto Wt = kforge_torch::view(weight, {K, N});
  auto Y = kforge_torch::view(y, {M});
  auto h = at::matmul(X, Wt) + kforge_torch::view(bias, {N});
  h = at::avg_pool1d(h.unsqueeze(1), {P}, {P}).squeeze(1);
  h = at::gelu(h, "tanh");
  h = h * scale_factor;
  at::amax_out(Y, h, {1});
}
