// Matmul + Sigmoid + Sum reference: each row of x·W accumulated in double (rows in parallel; each
// element's sum is serial, so the result does not depend on the thread count), the sigmoids and
// their row sum in double too.
#include <cmath>
#include <vector>

#include "kforge_task.h"

extern "C" void kernel(const float* x, const float* weight, const float* bias, float* y) {
  using namespace task;
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < M; ++i) {
    std::vector<double> acc(N, 0.0);
    for (std::int64_t k = 0; k < K; ++k) {
      const double xik = x[i * K + k];
      const float* wrow = weight + k * N;
      for (std::int64_t j = 0; j < N; ++j) acc[j] += xik * wrow[j];
    }
    double sum = 0;
    for (std::int64_t j = 0; j < N; ++j) sum += 1.0 / (1.0 + std::exp(-(acc[j] + bias[j])));
    y[i] = static_cast<float>(sum);
  }
}
