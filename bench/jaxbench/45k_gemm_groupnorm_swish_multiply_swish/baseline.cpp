// Gemm + GroupNorm + Swish + Multiply + Swish as PyTorch eager runs it: the ops of JAXBench's
// workload, one by one.
#include <ATen/ATen.h>
#include <kforge/torch_view.h>

#include "kforge_task.h"

extern "C" void kernel(const float* x, const float* gemm_weight, const float* gemm_bias, const float* gn_weight,
                       const float* gn_bias, const float* multiply_weight, float* y) {
  using namespace task;
  auto X = kforge_torch::view(x, {M, K});
  auto Wt = kforge_torch::view(gemm_weight, {N, K});
  auto Y = kforge_torch::view(y, {M, N});
  auto vec = [](const float* p) { return kforge_torch::view(p, {N}); };
  auto h = at::matmul(X, Wt.t()) + vec(gemm_bias);
  auto grouped = h.view({M, G, N / G});
  auto mean = grouped.mean({-1}, /*keepdim=*/true);
  auto var = grouped.var({-1}, /*unbiased=*/false, /*keepdim=*/true);
  h = ((grouped - mean) / at::sqrt(var + eps)).view({M, N});
  h = h * vec(gn_weight) + vec(gn_bias);
  h = h * at::sigmoid(h);
  h = h * vec(multiply_weight);
  at::mul_out(Y, h, at::sigmoid(h));
}
