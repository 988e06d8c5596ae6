// Matmul + Add + Swish + Tanh + GELU + Hardtanh: OpenBLAS sgemm for x·W straight into y, then one
// AVX2 pass per row while it sits in L1: both biases, swish, tanh, the tanh-form GELU and the clip,
// instead of six passes over the output. Every transcendental goes through one polynomial exp.
#include <cblas.h>
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "kforge_task.h"

namespace {

const float kC = static_cast<float>(std::sqrt(2.0 / std::numbers::pi));  // sqrt(2/π)

// e^x to ~2 ulp: x = n·ln2 + r with |r| ≤ ln2/2, a degree-6 polynomial for e^r, 2^n via the exponent.
inline __m256 exp_avx2(__m256 x) {
  x = _mm256_min_ps(_mm256_max_ps(x, _mm256_set1_ps(-87.3f)), _mm256_set1_ps(88.3f));
  const __m256 n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504f)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), x);
  r = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), r);
  __m256 p = _mm256_set1_ps(1.9875691500e-4f);
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.3981999507e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3334519073e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1665795894e-2f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.6666665459e-1f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.0000001201e-1f));
  p = _mm256_fmadd_ps(p, _mm256_mul_ps(r, r), _mm256_add_ps(r, _mm256_set1_ps(1.0f)));
  const __m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
  return _mm256_mul_ps(p, _mm256_castsi256_ps(e));
}

// clip(gelu_tanh(tanh(swish(v))), −1, 1), with swish(v) = v/(1 + e^−v), tanh(s) = 1 − 2/(e^2s + 1)
// and gelu_tanh(t) = t/(1 + e^−2u), u = sqrt(2/π)·(t + 0.044715·t³).
inline __m256 epilogue_avx2(__m256 v) {
  const __m256 one = _mm256_set1_ps(1.0f);
  const __m256 s = _mm256_div_ps(v, _mm256_add_ps(one, exp_avx2(_mm256_sub_ps(_mm256_setzero_ps(), v))));
  const __m256 t = _mm256_sub_ps(one, _mm256_div_ps(_mm256_set1_ps(2.0f), _mm256_add_ps(exp_avx2(_mm256_add_ps(s, s)), one)));
  const __m256 u = _mm256_mul_ps(_mm256_set1_ps(kC), _mm256_fmadd_ps(_mm256_set1_ps(0.044715f), _mm256_mul_ps(_mm256_mul_ps(t, t), t), t));
  const __m256 g = _mm256_div_ps(t, _mm256_add_ps(one, exp_avx2(_mm256_mul_ps(_mm256_set1_ps(-2.0f), u))));
  return _mm256_min_ps(_mm256_max_ps(g, _mm256_set1_ps(-1.0f)), one);
}

inline float epilogue(float v) {
  const float t = std::tanh(v / (1.0f + std::exp(-v)));
  return std::clamp(0.5f * t * (1.0f + std::tanh(kC * (t + 0.044715f * t * t * t))), -1.0f, 1.0f);
}

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
