// Gemm + Divide + Sum + Scaling without the matmul: the row sum commutes with it,
//   y_i = (1.5 / 2)·Σ_j Σ_k x_ik·W_jk = 0.75·Σ_k x_ik·s_k,  s_k = Σ_j W_jk,
// so one pass over W forms the column sums s (H·K adds) and one pass over x forms the
// matrix-vector product (M·K multiply-adds): memory-bound, two reads of the inputs in all.
// Sums are accumulated in double, which keeps the rounding well below the matmul's own.
#include <vector>

#include "kforge_task.h"

extern "C" void kernel(const float* x, const float* weight, float* y) {
  using namespace task;
  static std::vector<double> s(K);  // column sums of W; sized once, refilled every call
  constexpr double scale = f64::scaling_factor / static_cast<double>(divisor);
#pragma omp parallel
  {
    // Column sums: each thread owns a slice of k and walks every row of W over it, so the
    // adds are independent across k and vectorise.
#pragma omp for schedule(static)
    for (std::int64_t kb = 0; kb < K; kb += 256) {
      const std::int64_t ke = kb + 256 < K ? kb + 256 : K;
      double acc[256] = {};
      for (std::int64_t j = 0; j < H; ++j) {
        const float* wr = weight + j * K;
        for (std::int64_t k = kb; k < ke; ++k) acc[k - kb] += wr[k];
      }
      for (std::int64_t k = kb; k < ke; ++k) s[k] = acc[k - kb];
    }
    // Matrix-vector product, one row of x per iteration.
#pragma omp for schedule(static)
    for (std::int64_t i = 0; i < M; ++i) {
      const float* xr = x + i * K;
      double dot = 0;
#pragma omp simd reduction(+ : dot)
      for (std::int64_t k = 0; k < K; ++k) dot += xr[k] * s[k];
      y[i] = static_cast<float>(dot * scale);
    }
  }
}
