// Gemm + Add + ReLU reference: each row of x·W accumulated in double (rows in parallel; each
// element's sum is serial, so the result does not depend on the thread count).
#include <algorithm>
#include <vector>

#include "kforge/guard_probe.h"
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
    for (std::int64_t j = 0; j < N; ++j) {
      const double v = acc[j] + bias[j];
      y[i * N + j] = static_cast<float>(KFORGE_GUARD("relu", v < 0.0) ? 0.0 : v);
    }
  }
}
