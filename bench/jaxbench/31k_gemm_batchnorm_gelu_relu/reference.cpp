// Gemm + BatchNorm + GELU + ReLU reference: every value of x·Wᵀ + b is a serial dot product in
// double (rows in parallel), then each column is normalised over the batch with its two-pass
// mean and biased variance (columns in parallel), the affine applied, the tanh-approximated GELU
// and the ReLU, all in double.
#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "kforge/guard_probe.h"
#include "kforge_task.h"

extern "C" void kernel(const float* x, const float* gemm_weight, const float* gemm_bias, const float* bn_weight,
                       const float* bn_bias, float* y) {
  using namespace task;
  std::vector<double> h(M * N);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < M; ++i)
    for (std::int64_t j = 0; j < N; ++j) {
      const float* xr = x + i * K;
      const float* wr = gemm_weight + j * K;
      double dot = gemm_bias[j];
      for (std::int64_t k = 0; k < K; ++k) dot += static_cast<double>(xr[k]) * wr[k];
      h[i * N + j] = dot;
    }
  const double gelu_c = std::sqrt(2.0 / std::numbers::pi);
#pragma omp parallel for schedule(static)
  for (std::int64_t j = 0; j < N; ++j) {
    double mean = 0;
    for (std::int64_t i = 0; i < M; ++i) mean += h[i * N + j];
    mean /= M;
    double var = 0;
    for (std::int64_t i = 0; i < M; ++i) var += (h[i * N + j] - mean) * (h[i * N + j] - mean);
    var /= M;
    const double inv_std = 1.0 / std::sqrt(var + f64::eps);
    for (std::int64_t i = 0; i < M; ++i) {
      const double v = (h[i * N + j] - mean) * inv_std * bn_weight[j] + bn_bias[j];
      const double gelu = 0.5 * v * (1.0 + std::tanh(gelu_c * (v + 0.044715 * v * v * v)));
      y[i * N + j] = static_cast<float>(KFORGE_GUARD("relu", gelu < 0.0) ? 0.0 : gelu);
    }
  }
}
