// Matmul + Sigmoid + Sum as PyTorch eager runs it: matmul, bias add, sigmoid and row sum, each
// its own op.
#include <ATen/ATen.h>
#include <kforge/torch_view.h>

#include "kforge_task.h"

extern "C" void kernel(const float* x, const float* weight, const float* bias, float* y) {
  using namespace task;
  auto X = kforge_torch::view(x, {M, K});
  auto Wt = kforge_torch::view(weight, {K, N});
  auto Y = kforge_torch::view(y, {M, 1});
  auto h = at::matmul(X, Wt) + kforge_torch::view(bias, {N});
  h = at::sigmoid(h);
  at::sum_out(Y, h, {1}, /*keepdim=*/true);
}
