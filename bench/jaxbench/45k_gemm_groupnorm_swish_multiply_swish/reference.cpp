// Gemm + GroupNorm + Swish + Multiply + Swish reference: W is transposed once so that each row of
// x·Wᵀ accumulates in double along contiguous rows (rows in parallel; each element's sum is
// serial, so the result does not depend on the thread count); group statistics and the epilogue
// in double.
#include <cmath>
#include <vector>

#include "kforge_task.h"

namespace {

double swish(double v) { return v / (1.0 + std::exp(-v)); }

}  // namespace

extern "C" void kernel(const float* x, const float* gemm_weight, const float* gemm_bias, const float* gn_weight,
                       const float* gn_bias, const float* multiply_weight, float* y) {
  using namespace task;
  constexpr std::int64_t GS = N / G;
  std::vector<float> wt(K * N);  // Wᵀ, (K, N)
#pragma omp parallel for schedule(static)
  for (std::int64_t k = 0; k < K; ++k)
    for (std::int64_t j = 0; j < N; ++j) wt[k * N + j] = gemm_weight[j * K + k];
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < M; ++i) {
    std::vector<double> h(N, 0.0);
    for (std::int64_t k = 0; k < K; ++k) {
      const double xik = x[i * K + k];
      const float* wrow = wt.data() + k * N;
      for (std::int64_t j = 0; j < N; ++j) h[j] += xik * wrow[j];
    }
    for (std::int64_t j = 0; j < N; ++j) h[j] += gemm_bias[j];
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
        const double v = swish((hg[t] - mean) * inv * gn_weight[c] + gn_bias[c]) * multiply_weight[c];
        y[i * N + c] = static_cast<float>(swish(v));
      }
    }
  }
}
