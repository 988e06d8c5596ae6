// Gemm + Scaling + Hardtanh + GELU reference: each row of x·W accumulated in double (rows in
// parallel; each element's sum is serial, so the result does not depend on the thread count),
// the epilogue in double.
#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "kforge/guard_probe.h"
#include "kforge_task.h"

extern "C" void kernel(const float* x, const float* weight, const float* bias, float* y) {
  using namespace task;
  const double c = std::sqrt(2.0 / std::numbers::pi);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < M; ++i) {
    std::vector<double> acc(N, 0.0);
    for (std::int64_t k = 0; k < K; ++k) {
      const double xik = x[i * K + k];
      const float* wrow = weight + k * N;
      for (std::int64_t j = 0; j < N; ++j) acc[j] += xik * wrow[j];
    }
    for (std::int64_t j = 0; j < N; ++j) {
      double h = (acc[j] + bias[j]) * f64::scaling_factor;
      h = KFORGE_CLAMP("hardtanh", h, static_cast<double>(hardtanh_min), static_cast<double>(hardtanh_max));
      y[i * N + j] = static_cast<float>(h * 0.5 * (1.0 + std::tanh(c * (h + 0.044715 * h * h * h))));
    }
  }
}
