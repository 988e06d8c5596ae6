// Gemm + Scaling + Hardtanh + GELU as PyTorch eager runs it: the ops of JAXBench's workload one by
// one, its hand-written tanh GELU included.
#include <ATen/ATen.h>
#include <kforge/torch_view.h>

#include <cmath>
#include <numbers>

#include "kforge_task.h"

extern "C" void kernel(const float* x, const float* weight, const float* bias, float* y) {
  using namespace task;
  auto X = kforge_torch::view(x, {M, K});
  auto Wt = kforge_torch::view(weight, {K, N});
  auto Y = kforge_torch::view(y, {M, N});
  auto h = at::matmul(X, Wt) + kforge_torch::view(bias, {N});
  h = h * scaling_factor;
  h = at::clamp(h, hardtanh_min, hardtanh_max);
  const double c = std::sqrt(2.0 / std::numbers::pi);
  auto inner = (h + at::pow(h, 3) * 0.044715) * c;
  at::mul_out(Y, h * 0.5, at::tanh(inner) + 1.0);
}
