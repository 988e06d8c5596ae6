// Matmul + BatchNorm (eval) + BiasAdd + Divide + Swish as PyTorch eager runs it: the ops of
// JAXBench's workload, one by one.
#include <ATen/ATen.h>
#include <kforge/torch_view.h>

#include "kforge_task.h"

extern "C" void kernel(const float* x, const float* weight, const float* linear_bias, const float* bn_scale,
                       const float* bn_bias, const float* bn_mean, const float* bn_var, const float* bias, float* y) {
  using namespace task;
  auto X = kforge_torch::view(x, {M, K});
  auto Wt = kforge_torch::view(weight, {K, N});
  auto Y = kforge_torch::view(y, {M, N});
  auto vec = [](const float* p) { return kforge_torch::view(p, {N}); };
  auto h = at::matmul(X, Wt) + vec(linear_bias);
  auto normed = (h - vec(bn_mean)) / at::sqrt(vec(bn_var) + bn_eps);
  h = vec(bn_scale) * normed + vec(bn_bias);
  h = h + kforge_torch::view(bias, {1});
  h = h / divide_value;
  at::mul_out(Y, h, at::sigmoid(h));
}
