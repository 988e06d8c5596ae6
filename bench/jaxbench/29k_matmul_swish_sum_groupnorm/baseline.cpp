// Matmul + Swish + Sum + GroupNorm as PyTorch eager runs it: matmul, sigmoid and multiply, bias
// add, then the group norm written out as JAX writes it (reshape to groups, mean, biased var,
// normalise, reshape back, affine), each its own op.
#include <ATen/ATen.h>
#include <kforge/torch_view.h>

#include "kforge_task.h"

extern "C" void kernel(const float* x, const float* weight, const float* bias, const float* gn_weight,
                       const float* gn_bias, float* y) {
  using namespace task;
  auto X = kforge_torch::view(x, {M, K});
  auto Wt = kforge_torch::view(weight, {K, N});
  auto Y = kforge_torch::view(y, {M, N});
  auto h = at::matmul(X, Wt);
  h = at::sigmoid(h) * h;
  h = h + kforge_torch::view(bias, {N});
  auto g = h.reshape({-1, G, N / G});
  auto mean = g.mean({-1}, /*keepdim=*/true);
  auto var = g.var({-1}, /*unbiased=*/false, /*keepdim=*/true);
  g = (g - mean) / at::sqrt(var + eps);
  h = g.reshape({-1, N});
  h = h * kforge_torch::view(gn_weight, {N});
  at::add_out(Y, h, kforge_torch::view(gn_bias, {N}));
}
