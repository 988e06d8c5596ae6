// Grouped matmul reference: each row of lhs times the matrix of the expert whose group holds the
// row, accumulated in double (rows in parallel; each sum is serial, so the result does not depend
// on the thread count).
#include <vector>

#include "kforge_task.h"

extern "C" void kernel(const float* lhs, const float* rhs, const std::int32_t* group_sizes, float* out) {
  using namespace task;
  // The first row of each group: groups are consecutive, in order, from row 0.
  std::vector<std::int64_t> group_of_row(M);
  for (std::int64_t g = 0, row = 0; g < G; ++g)
    // not a guard: the ragged group layout itself (generate.cpp: uneven sizes, one group empty)
    for (std::int32_t i = 0; i < group_sizes[g]; ++i) group_of_row[row++] = g;

#pragma omp parallel for schedule(static)
  for (std::int64_t r = 0; r < M; ++r) {
    const float* w = rhs + group_of_row[r] * K * N;
    std::vector<double> acc(N, 0.0);
    for (std::int64_t k = 0; k < K; ++k) {
      const double a = lhs[r * K + k];
      for (std::int64_t n = 0; n < N; ++n) acc[n] += a * w[k * N + n];
    }
    for (std::int64_t n = 0; n < N; ++n) out[r * N + n] = static_cast<float>(acc[n]);
  }
}
