// Gemm + Max + Subtract + GELU reference: each row of x·W accumulated in double (rows in parallel;
// each element's sum is serial, so the result does not depend on the thread count), the row max
// and the tanh GELU in double.
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
    std::vector<double> h(N, 0.0);
    for (std::int64_t k = 0; k < K; ++k) {
      const double xik = x[i * K + k];
      const float* wrow = weight + k * N;
      for (std::int64_t j = 0; j < N; ++j) h[j] += xik * wrow[j];
    }
    for (std::int64_t j = 0; j < N; ++j) h[j] += bias[j];
    double mx = h[0];  // the row max (with the guard skipped, the first feature)
    for (std::int64_t j = 1; j < N; ++j) mx = KFORGE_GUARD("row_max", h[j] > mx) ? h[j] : mx;
    for (std::int64_t j = 0; j < N; ++j) {
      const double v = h[j] - mx;
      y[i * N + j] = static_cast<float>(0.5 * v * (1.0 + std::tanh(c * (v + 0.044715 * v * v * v))));
    }
  }
}
