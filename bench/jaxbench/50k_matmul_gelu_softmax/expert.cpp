// Matmul + GELU + Softmax: OpenBLAS sgemm for x·W straight into y, then one fused AVX2 pass per
// row while the row sits in L1: bias, tanh-form GELU (as v·sigmoid(2u)), the row max, exp and
// normalization, instead of four passes over the output. exp is a polynomial.
#include <cblas.h>
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <limits>
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

// 0.5·v·(1 + tanh(u)) = v / (1 + e^(−2u)), u = sqrt(2/π)·(v + 0.044715·v³).
inline __m256 gelu_tanh_avx2(__m256 v) {
  const __m256 v3 = _mm256_mul_ps(_mm256_mul_ps(v, v), v);
  const __m256 u = _mm256_mul_ps(_mm256_set1_ps(kC), _mm256_fmadd_ps(_mm256_set1_ps(0.044715f), v3, v));
  const __m256 e = exp_avx2(_mm256_mul_ps(_mm256_set1_ps(-2.0f), u));
  return _mm256_div_ps(v, _mm256_add_ps(_mm256_set1_ps(1.0f), e));
}

inline float gelu_tanh(float v) { return 0.5f * v * (1.0f + std::tanh(kC * (v + 0.044715f * v * v * v))); }

inline float hmax(__m256 v) {
  __m128 m = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  m = _mm_max_ps(m, _mm_movehl_ps(m, m));
  m = _mm_max_ss(m, _mm_movehdup_ps(m));
  return _mm_cvtss_f32(m);
}

inline float hsum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

// softmax(gelu(row + bias)) in place.
void gelu_softmax_row(float* row, const float* bias) {
  constexpr std::int64_t N = task::N, NV = N / 8 * 8;
  __m256 vmax = _mm256_set1_ps(-std::numeric_limits<float>::infinity());
  for (std::int64_t j = 0; j < NV; j += 8) {
    const __m256 g = gelu_tanh_avx2(_mm256_add_ps(_mm256_loadu_ps(row + j), _mm256_loadu_ps(bias + j)));
    _mm256_storeu_ps(row + j, g);
    vmax = _mm256_max_ps(vmax, g);
  }
  float mx = hmax(vmax);
  for (std::int64_t j = NV; j < N; ++j) mx = std::max(mx, row[j] = gelu_tanh(row[j] + bias[j]));
  const __m256 vmx = _mm256_set1_ps(mx);
  __m256 vsum = _mm256_setzero_ps();
  for (std::int64_t j = 0; j < NV; j += 8) {
    const __m256 e = exp_avx2(_mm256_sub_ps(_mm256_loadu_ps(row + j), vmx));
    _mm256_storeu_ps(row + j, e);
    vsum = _mm256_add_ps(vsum, e);
  }
  float sum = hsum(vsum);
  for (std::int64_t j = NV; j < N; ++j) sum += (row[j] = std::exp(row[j] - mx));
  const float inv = 1.0f / sum;
  const __m256 vinv = _mm256_set1_ps(inv);
  for (std::int64_t j = 0; j < NV; j += 8) _mm256_storeu_ps(row + j, _mm256_mul_ps(_mm256_loadu_ps(row + j), vinv));
  for (std::int64_t j = NV; j < N; ++j) row[j] *= inv;
}

}  // namespace

extern "C" void kernel(const float* x, const float* weight, const float* bias, float* y) {
  using namespace task;
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0f, x, K, weight, N, 0.0f, y, N);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < M; ++i) gelu_softmax_row(y + i * N, bias);
}
