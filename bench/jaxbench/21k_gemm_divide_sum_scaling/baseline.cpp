// Gemm + Divide + Sum + Scaling as PyTorch eager runs it: matmul with the transposed weight,
// divide, sum over the hidden axis (keepdim), scale; each its own op.
#include <ATen/ATen.h>
#include <kforge/torch_view.h>

#include "kforge_task.h"

extern "C" void kernel(const float* x, const float* weight, float* y) {
  using namespace task;
  auto X = kforge_torch::view(x, {M, K});
  auto Wt = kforge_torch::view(weight, {H, K});
  auto Y = kforge_torch::view(y, {M, 1});
  auto h = at::matmul(X, Wt.t());
  h = h / divisor;
  auto s = at::sum(h, {1}, /*keepdim=*/true);
  at::mul_out(Y, s, at::scalar_tensor(scaling_factor));
}
