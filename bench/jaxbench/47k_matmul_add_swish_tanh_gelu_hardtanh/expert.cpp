// Matmul + Add + Swish + Tanh + GELU + Hardtanh: OpenBLAS sgemm for x·W straight into y, then one
// AVX2 pass per row while it sits in L1: both biases, swish, tanh, the tanh-form GELU and the clip,
// instead of six passes over the output. Every transcendental goes through one polynomial exp.
#include <cblas.h>
#include <immintrin.h>

#include <algorithm>
#include <cmath>

#include "kforge_task.h"
#include "kforge/simd_math.h"

namespace {

using kforge::simd::gelu_tanh;
using kforge::simd::gelu_tanh_ps;
using kforge::simd::swish_ps;
using kforge::simd::tanh_ps;

// clip(gelu_tanh(tanh(swish(v))), −1, 1).
inline __m256 epilogue_avx2(__m256 v) {
  return _mm256_min_ps(_mm256_max_ps(gelu_tanh_ps(tanh_ps(swish_ps(v))), _mm256_set1_ps(-1.0f)), _mm256_set1_ps(1.0f));
}

inline float epilogue(float v) { return std::clamp(gelu_tanh(std::tanh(v / (1.0f + std::exp(-v)))), -1.0f, 1.0f); }

}  // namespace

extern "C" void kernel(const float* x, const float* weight, const float* bias, const float* add_value, float* y) {
  using namespace task;
  constexpr std::int64_t NV = N / 8 * 8;
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0f, x, K, weight, N, 0.0f, y, N);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < M; ++i) {
    float* row = y + i * N;
    for (std::int64_t j = 0; j < NV; j += 8) {
      const __m256 v = _mm256_add_ps(_mm256_add_ps(_mm256_loadu_ps(row + j), _mm256_loadu_ps(bias + j)), _mm256_loadu_ps(add_value + j));
      _mm256_storeu_ps(row + j, epilogue_avx2(v));
    }
    for (std::int64_t j = NV; j < N; ++j) row[j] = epilogue(row[j] + bias[j] + add_value[j]);
  }
}
