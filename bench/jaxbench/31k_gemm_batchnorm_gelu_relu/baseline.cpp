// Gemm + BatchNorm + GELU + ReLU as PyTorch eager runs it: matmul with the transposed weight, bias
// add, the training-mode batch norm written out as JAX writes it (mean over the batch, mean of
// squared deviations, normalise, affine), tanh-approximated gelu, relu; each its own op.
#include <ATen/ATen.h>
#include <kforge/torch_view.h>

#include "kforge_task.h"

extern "C" void kernel(const float* x, const float* gemm_weight, const float* gemm_bias, const float* bn_weight,
                       const float* bn_bias, float* y) {
  using namespace task;
  auto X = kforge_torch::view(x, {M, K});
  auto Wt = kforge_torch::view(gemm_weight, {N, K});
  auto Y = kforge_torch::view(y, {M, N});
  auto h = at::matmul(X, Wt.t()) + kforge_torch::view(gemm_bias, {N});
  auto mean = h.mean({0}, /*keepdim=*/true);
  auto var = (h - mean).pow(2).mean({0}, /*keepdim=*/true);
  h = (h - mean) / at::sqrt(var + eps) * kforge_torch::view(bn_weight, {N}) + kforge_torch::view(bn_bias, {N});
  h = at::gelu(h, "tanh");
  at::relu_out(Y, h);
}
