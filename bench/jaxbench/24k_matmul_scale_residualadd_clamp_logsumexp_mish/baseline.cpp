// Matmul + Scale + ResidualAdd + Clamp + LogSumExp + Mish as PyTorch eager runs it: matmul with
// the transposed weight, bias add, ×2, x + x, clamp, logsumexp over axis 1 (keepdim), then
// logaddexp(z, 0), tanh and the two multiplies, each its own op.
#include <ATen/ATen.h>
#include <kforge/torch_view.h>

#include "kforge_task.h"

extern "C" void kernel(const float* x, const float* weight, const float* bias, float* y) {
  using namespace task;
  auto X = kforge_torch::view(x, {M, K});
  auto Wt = kforge_torch::view(weight, {N, K});
  auto Y = kforge_torch::view(y, {M, 1});
  auto h = at::matmul(X, Wt.t()) + kforge_torch::view(bias, {N});
  h = h * scale_factor;
  h = h + h;
  h = at::clamp(h, clamp_min, clamp_max);
  auto z = at::logsumexp(h, {1}, /*keepdim=*/true);
  auto softplus = at::logaddexp(z, at::zeros_like(z));
  auto mish = z * at::tanh(softplus);
  at::mul_out(Y, z, mish);
}
