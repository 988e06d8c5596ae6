// Matmul + Sum + Max + AvgPool + LogSumExp + LogSumExp reference: the row sums of x·Wᵀ + b, each
// product a serial dot product in double (rows in parallel). The max, mean and two logsumexps
// that follow reduce an axis of length 1 and leave each value unchanged, so they are not written
// out (the JAX cross-check runs them).
#include "kforge_task.h"

extern "C" void kernel(const float* x, const float* weight, const float* bias, float* y) {
  using namespace task;
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < M; ++i) {
    const float* xr = x + i * K;
    double row_sum = 0;
    for (std::int64_t j = 0; j < N; ++j) {
      const float* wr = weight + j * K;
      double dot = bias[j];
      for (std::int64_t k = 0; k < K; ++k) dot += static_cast<double>(xr[k]) * wr[k];
      row_sum += dot;
    }
    y[i] = static_cast<float>(row_sum);
  }
}
