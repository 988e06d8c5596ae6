// Matmul + GELU + Softmax as PyTorch eager runs it: matmul, bias add, the tanh GELU and softmax,
// each its own op.
#include <ATen/ATen.h>
#include <kforge/torch_view.h>

#include "kforge_task.h"

extern "C" void kernel(const float* x, const float* weight, const float* bias, float* y) {
  using namespace task;
  auto X = kforge_torch::view(x, {M, K});
  auto Wt = kforge_torch::view(weight, {K, N});
  auto Y = kforge_torch::view(y, {M, N});
  auto h = at::matmul(X, Wt) + kforge_torch::view(bias, {N});
  h = at::gelu(h, "tanh");
  at::_softmax_out(Y, h, 1, /*half_to_float=*/false);
}
