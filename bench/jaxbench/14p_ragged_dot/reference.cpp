// Batched matmul reference: each row of each group times that group's matrix, accumulated in
// double (rows in parallel; each sum is serial, so the result does not depend on the thread
// count).
#include <vector>

#include "kforge_task.h"

extern "C" void kernel(const float* x, const float* weights, float* out) {
  using namespace task;
  constexpr std::int64_t R = M / G;  // rows per group
#pragma omp parallel for schedule(static)
  for (std::int64_t row = 0; row < M; ++row) {
    const float* w = weights + (row / R) * K * N;
    std::vector<double> acc(N, 0.0);
    for (std::int64_t k = 0; k < K; ++k) {
      const double a = x[row * K + k];
      for (std::int64_t n = 0; n < N; ++n) acc[n] += a * w[k * N + n];
    }
    for (std::int64_t n = 0; n < N; ++n) out[row * N + n] = static_cast<float>(acc[n]);
  }
}
