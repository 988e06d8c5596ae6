// Matmul + Add + Swish + Tanh + GELU + Hardtanh reference: each row of x·W accumulated in double
// (rows in parallel; each element's sum is serial, so the result does not depend on the thread
// count), the epilogue in double.
#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "kforge_task.h"

extern "C" void kernel(const float* x, const float* weight, const float* bias, const float* add_value, float* y) {
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
    for (std::int64_t j = 0; j < N; ++j) {
      double v = acc[j] + bias[j] + add_value[j];
      v = std::tanh(v / (1.0 + std::exp(-v)));
      v = 0.5 * v * (1.0 + std::tanh(c * (v + 0.044715 * v * v * v)));
      // never fires: v = gelu(tanh(·)) lies in (−0.17, 0.85), inside the hardtanh's [−1, 1]
      y[i * N + j] = static_cast<float>(std::clamp(v, -1.0, 1.0));
    }
  }
}
