// Matmul + Scaling + ResidualAdd with no epilogue pass at all: h·0.5 + h = 1.5·(x·W + b), so y
// is pre-filled with 1.5·b (1 MiB, cheap) and one OpenBLAS sgemm computes 1.5·(x·W) + y in
// place (alpha = 1.5, beta = 1). The scaling rides in the GEMM's own write-back. (A oneDNN
// matmul with the bias and a linear post-op ran at 0.91x the libtorch baseline on this shape.)
#include <cblas.h>

#include "kforge_task.h"

extern "C" void kernel(const float* x, const float* weight, const float* bias, float* y) {
  using namespace task;
  constexpr float scale = 1.0f + static_cast<float>(scaling_factor);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < M; ++i) {
    float* row = y + i * N;
#pragma omp simd
    for (std::int64_t j = 0; j < N; ++j) row[j] = scale * bias[j];
  }
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, scale, x, K, weight, N, 1.0f, y, N);
}
