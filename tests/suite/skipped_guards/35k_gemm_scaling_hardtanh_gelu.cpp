// 35k's reference with its hardtanh clip left out, as a fused kernel that forgets it would be:
// guards_test.cpp (SkippedGuard) expects kforge to judge it incorrect at the ci size, and correct
// when built with -DKFORGE_KEEP_GUARD. With JAXBench's narrow bias the clip never bound at the ci
// and cpu sizes, and both passed.
#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

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
    for (std::int64_t j = 0; j < N; ++j) {
      double h = (acc[j] + bias[j]) * f64::scaling_factor;
#ifdef KFORGE_KEEP_GUARD
      h = std::clamp(h, static_cast<double>(hardtanh_min), static_cast<double>(hardtanh_max));
#endif
      y[i * N + j] =
          static_cast<float>(h * 0.5 * (1.0 + std::tanh(c * (h + 0.044715 * h * h * h))));
    }
  }
}
