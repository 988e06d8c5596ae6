// Matmul + Swish + Scaling: OpenBLAS sgemm for x·W straight into y, then one AVX2 pass per row
// while it sits in L1: bias, swish (v·sigmoid(v), with a polynomial exp) and the ×2, instead of
// four passes over the output.
#include <cblas.h>
#include <immintrin.h>

#include <cmath>

#include "kforge_task.h"
#include "kforge/simd_math.h"

using kforge::simd::swish_ps;

extern "C" void kernel(const float* x, const float* weight, const float* bias, float* y) {
  using namespace task;
  constexpr std::int64_t NV = N / 8 * 8;
  constexpr float scale = static_cast<float>(scaling_factor);
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0f, x, K, weight, N, 0.0f, y, N);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < M; ++i) {
    float* row = y + i * N;
    for (std::int64_t j = 0; j < NV; j += 8) {
      const __m256 v = _mm256_add_ps(_mm256_loadu_ps(row + j), _mm256_loadu_ps(bias + j));
      _mm256_storeu_ps(row + j, _mm256_mul_ps(swish_ps(v), _mm256_set1_ps(scale)));
    }
    for (std::int64_t j = NV; j < N; ++j) {
      const float v = row[j] + bias[j];
      row[j] = v / (1.0f + std::exp(-v)) * scale;
    }
  }
}
