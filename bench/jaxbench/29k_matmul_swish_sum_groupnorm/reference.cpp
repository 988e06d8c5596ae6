// Matmul + Swish + Sum + GroupNorm reference: each row of x·W accumulated in double, then swish
// and the bias in double, and each group of N/G features normalised with its two-pass mean and
// biased variance, then the affine (rows in parallel; every sum is serial, so the result does not
// depend on the thread count).
#include <cmath>
#include <vector>

#include "kforge_task.h"

extern "C" void kernel(const float* x, const float* weight, const float* bias, const float* gn_weight,
                       const float* gn_bias, float* y) {
  using namespace task;
  constexpr std::int64_t GS = N / G;
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < M; ++i) {
    std::vector<double> acc(N, 0.0);
    for (std::int64_t k = 0; k < K; ++k) {
      const double xik = x[i * K + k];
      const float* wrow = weight + k * N;
      for (std::int64_t j = 0; j < N; ++j) acc[j] += xik * wrow[j];
    }
    for (std::int64_t j = 0; j < N; ++j) acc[j] = acc[j] / (1.0 + std::exp(-acc[j])) + bias[j];
    for (std::int64_t g = 0; g < G; ++g) {
      const double* grp = acc.data() + g * GS;
      double mean = 0;
      for (std::int64_t j = 0; j < GS; ++j) mean += grp[j];
      mean /= GS;
      double var = 0;
      for (std::int64_t j = 0; j < GS; ++j) var += (grp[j] - mean) * (grp[j] - mean);
      var /= GS;
      const double inv_std = 1.0 / std::sqrt(var + f64::eps);
      for (std::int64_t j = g * GS; j < (g + 1) * GS; ++j)
        y[i * N + j] = static_cast<float>((acc[j] - mean) * inv_std * gn_weight[j] + gn_bias[j]);
    }
  }
}
