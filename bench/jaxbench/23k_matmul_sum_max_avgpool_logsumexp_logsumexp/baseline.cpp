// Matmul + Sum + Max + AvgPool + LogSumExp + LogSumExp as PyTorch eager runs it: matmul with the
// transposed weight, bias add, then sum, amax, mean, logsumexp, logsumexp over axis 1 (keepdim),
// each its own op, exactly as the JAX code chains them.
#include <ATen/ATen.h>
#include <kforge/torch_view.h>

#include "kforge_task.h"

extern "C" void kernel(const float* x, const float* weight, const float* bias, float* y) {
  using namespace task;
  auto X = kforge_torch::view(x, {M, K});
  auto Wt = kforge_torch::view(weight, {N, K});
  auto Y = kforge_torch::view(y, {M, 1});
  auto h = at::matmul(X, Wt.t()) + kforge_torch::view(bias, {N});
  h = at::sum(h, {1}, /*keepdim=*/true);
  h = at::amax(h, {1}, /*keepdim=*/true);
  h = at::mean(h, {1}, /*keepdim=*/true);
  h = at::logsumexp(h, {1}, /*keepdim=*/true);
  at::logsumexp_out(Y, h, {1}, /*keepdim=*/true);
}
