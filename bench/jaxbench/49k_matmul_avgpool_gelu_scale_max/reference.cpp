// Matmul + AvgPool + GELU + Scale + Max reference: each row of x·W accumulated in double (rows in
// parallel; each element's sum is serial, so the result does not depend on the thread count), the
// pool, tanh GELU and max in double.
#include <algorithm>
#include <cmath>
#include <limits>
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
    double mx = -std::numeric_limits<double>::infinity();
    for (std::int64_t p = 0; p < N / P; ++p) {
      double sum = 0;
      for (std::int64_t j = p * P; j < (p + 1) * P; ++j) sum += acc[j] + bias[j];
      const double v = sum / P;
      const double g = 0.5 * v * (1.0 + std::tanh(c * (v + 0.044715 * v * v * v)));
      const double s = g * static_cast<double>(scale_factor);
      mx = (p == 0 || KFORGE_GUARD("pool_max", s > mx)) ? s : mx;  // with the guard skipped, the first pool
    }
    y[i] = static_cast<float>(mx);
  }
}
