// Matmul + Softmax as PyTorch eager runs it: matmul with the transposed weight, bias add, softmax,
// each its own op (the workload skips the dropout).
#include <ATen/ATen.h>
#include <kforge/torch_view.h>

#include "kforge_task.h"

extern "C" void kernel(const float* x, const float* weight, const float* bias, float* y) {
  using namespace task;
  auto X = kforge_torch::view(x, {M, K});
  auto Wt = kforge_torch::view(weight, {N, K});
  auto Y = kforge_torch::view(y, {M, N});
  auto h = at::matmul(X, Wt.t()) + kforge_torch::view(bias, {N});
  at::_softmax_out(Y, h, 1, /*half_to_float=*/false);
}
