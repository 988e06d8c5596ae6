// GEMM reference: each row of C accumulated in double (rows in parallel; each element's sum is
// serial, so the result does not depend on the thread count).
#include <vector>

#include "kforge_task.h"

extern "C" void kernel(const float* a, const float* b, float* c) {
  using namespace task;
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < M; ++i) {
    std::vector<double> acc(N, 0.0);
    for (std::int64_t k = 0; k < K; ++k) {
      const double aik = a[i * K + k];
      const float* brow = b + k * N;
      for (std::int64_t j = 0; j < N; ++j) acc[j] += aik * brow[j];
    }
    for (std::int64_t j = 0; j < N; ++j) c[i * N + j] = static_cast<float>(acc[j]);
  }
}
