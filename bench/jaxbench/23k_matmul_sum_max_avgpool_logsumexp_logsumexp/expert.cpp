// Matmul + Sum + Max + AvgPool + LogSumExp + LogSumExp without the matmul: the ops after the row
// sum reduce length-1 axes (identities), and the row sum commutes with the matmul,
//   y_i = Σ_j (x·Wᵀ + b)_ij = Σ_k x_ik·s_k + Σ_j b_j,  s_k = Σ_j W_jk,
// so one pass over W forms the column sums (N·K adds) and one pass over x the matrix-vector
// product (M·K multiply-adds): memory-bound, one read of each input. Sums run in double, which
// keeps the rounding well below the matmul's own.
#include <vector>

#include "kforge_task.h"

extern "C" void kernel(const float* x, const float* weight, const float* bias, float* y) {
  using namespace task;
  static std::vector<double> s(K);  // column sums of W; sized once, refilled every call
  double bias_sum = 0;
  for (std::int64_t j = 0; j < N; ++j) bias_sum += bias[j];
#pragma omp parallel
  {
    // Column sums: each thread owns a slice of k and walks every row of W over it, so the
    // adds are independent across k and vectorise.
#pragma omp for schedule(static)
    for (std::int64_t kb = 0; kb < K; kb += 256) {
      const std::int64_t ke = kb + 256 < K ? kb + 256 : K;
      double acc[256] = {};
      for (std::int64_t j = 0; j < N; ++j) {
        const float* wr = weight + j * K;
        for (std::int64_t k = kb; k < ke; ++k) acc[k - kb] += wr[k];
      }
      for (std::int64_t k = kb; k < ke; ++k) s[k] = acc[k - kb];
    }
    // Matrix-vector product, one row of x per iteration.
#pragma omp for schedule(static)
    for (std::int64_t i = 0; i < M; ++i) {
      const float* xr = x + i * K;
      double dot = bias_sum;
#pragma omp simd reduction(+ : dot)
      for (std::int64_t k = 0; k < K; ++k) dot += xr[k] * s[k];
      y[i] = static_cast<float>(dot);
    }
  }
}
