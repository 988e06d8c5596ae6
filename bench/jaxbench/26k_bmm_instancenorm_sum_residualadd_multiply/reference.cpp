// BMM + InstanceNorm + Sum + ResidualAdd + Multiply reference, written out as the workload runs
// it: each row of x·Wᵀ + b in double, then the instance norm over its 1×1 extent (mean = the
// value, variance 0), the affine, the residual add and the multiply (rows in parallel).
#include <cmath>

#include "kforge_task.h"

extern "C" void kernel(const float* x, const float* y, const float* bmm_weight, const float* bmm_bias,
                       const float* in_weight, const float* in_bias, float* out) {
  using namespace task;
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < M; ++i) {
    const float* xr = x + i * K;
    for (std::int64_t j = 0; j < N; ++j) {
      const float* wr = bmm_weight + j * K;
      double v = bmm_bias[j];
      for (std::int64_t k = 0; k < K; ++k) v += static_cast<double>(xr[k]) * wr[k];
      const double mean = v;  // the mean over a 1×1 extent
      const double var = (v - mean) * (v - mean);
      const double h = (v - mean) / std::sqrt(var + f64::eps) * in_weight[j] + in_bias[j];
      const double yv = y[i * N + j];
      out[i * N + j] = static_cast<float>((h + yv) * yv);
    }
  }
}
