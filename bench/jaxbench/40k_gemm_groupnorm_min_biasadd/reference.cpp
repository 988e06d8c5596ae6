// Gemm + GroupNorm + Min + BiasAdd reference: W is transposed once so that each row of x·Wᵀ
// accumulates in double along contiguous rows (rows in parallel; each element's sum is serial, so
// the result does not depend on the thread count); group statistics and the min in double.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "kforge/guard_probe.h"
#include "kforge_task.h"

extern "C" void kernel(const float* x, const float* weight, const float* linear_bias, const float* gn_weight,
                       const float* gn_bias, const float* bias, float* y) {
  using namespace task;
  constexpr std::int64_t GS = N / G;
  std::vector<float> wt(K * N);  // Wᵀ, (K, N)
#pragma omp parallel for schedule(static)
  for (std::int64_t k = 0; k < K; ++k)
    for (std::int64_t j = 0; j < N; ++j) wt[k * N + j] = weight[j * K + k];
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < M; ++i) {
    std::vector<double> h(N, 0.0);
    for (std::int64_t k = 0; k < K; ++k) {
      const double xik = x[i * K + k];
      const float* wrow = wt.data() + k * N;
      for (std::int64_t j = 0; j < N; ++j) h[j] += xik * wrow[j];
    }
    for (std::int64_t j = 0; j < N; ++j) h[j] += linear_bias[j];
    double row_min = std::numeric_limits<double>::infinity();
    for (std::int64_t g = 0; g < G; ++g) {
      const double* hg = h.data() + g * GS;
      double mean = 0;
      for (std::int64_t t = 0; t < GS; ++t) mean += hg[t];
      mean /= GS;
      double var = 0;
      for (std::int64_t t = 0; t < GS; ++t) var += (hg[t] - mean) * (hg[t] - mean);
      var /= GS;
      const double inv = 1.0 / std::sqrt(var + f64::eps);
      for (std::int64_t t = 0; t < GS; ++t) {
        const std::int64_t c = g * GS + t;
        // The running min (with the guard skipped, the row's first feature).
        const double v = (hg[t] - mean) * inv * gn_weight[c] + gn_bias[c];
        row_min = (c == 0 || KFORGE_GUARD("row_min", v < row_min)) ? v : row_min;
      }
    }
    for (std::int64_t c = 0; c < N; ++c) y[c * M + i] = static_cast<float>(row_min + bias[c]);
  }
}
