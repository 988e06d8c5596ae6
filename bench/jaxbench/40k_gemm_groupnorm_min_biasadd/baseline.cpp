// Gemm + GroupNorm + Min + BiasAdd as PyTorch eager runs it: the ops of JAXBench's workload, one
// by one, down to the final broadcasting add of (1, 1, batch, 1) and (1, N, 1, 1).
#include <ATen/ATen.h>
#include <kforge/torch_view.h>

#include "kforge_task.h"

extern "C" void kernel(const float* x, const float* weight, const float* linear_bias, const float* gn_weight,
                       const float* gn_bias, const float* bias, float* y) {
  using namespace task;
  auto X = kforge_torch::view(x, {M, K});
  auto Wt = kforge_torch::view(weight, {N, K});
  auto Y = kforge_torch::view(y, {1, N, M, 1});
  auto h = at::matmul(X, Wt.t()) + kforge_torch::view(linear_bias, {N});
  auto grouped = h.view({M, G, N / G});
  auto mean = grouped.mean({2}, /*keepdim=*/true);
  auto var = grouped.var({2}, /*unbiased=*/false, /*keepdim=*/true);
  h = ((grouped - mean) / at::sqrt(var + eps)).view({M, N});
  h = h * kforge_torch::view(gn_weight, {N}) + kforge_torch::view(gn_bias, {N});
  auto m = at::amin(h, {1}, /*keepdim=*/true);
  at::add_out(Y, m.view({1, 1, M, 1}), kforge_torch::view(bias, {1, N, 1, 1}));
}
