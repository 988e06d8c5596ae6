// Matmul + Swish + Sum + GroupNorm: OpenBLAS sgemm for x·W straight into y, then one AVX2 pass
// per group of N/G features while it sits in L1: swish (v·sigmoid(v), polynomial exp) plus the
// bias, the group's mean, a second sweep for the biased variance (two-pass, as the reference,
// over values still in cache), and the normalise-and-affine. (A oneDNN matmul with swish and
// binary-add post-ops ran at 0.70x the libtorch baseline on this shape: its small-M matmul loses
// to OpenBLAS here.)
#include <cblas.h>
#include <immintrin.h>

#include <cmath>

#include "kforge_task.h"

namespace {

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

inline float hsum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

// Swish plus bias over one group in place; returns the group's sum.
inline float swish_bias_group(float* v, const float* b, std::int64_t n) {
  __m256 acc = _mm256_setzero_ps();
  std::int64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    const __m256 a = _mm256_loadu_ps(v + j);
    const __m256 den = _mm256_add_ps(_mm256_set1_ps(1.0f), exp_avx2(_mm256_sub_ps(_mm256_setzero_ps(), a)));
    const __m256 s = _mm256_add_ps(_mm256_div_ps(a, den), _mm256_loadu_ps(b + j));
    _mm256_storeu_ps(v + j, s);
    acc = _mm256_add_ps(acc, s);
  }
  float sum = hsum(acc);
  for (; j < n; ++j) {
    v[j] = v[j] / (1.0f + std::exp(-v[j])) + b[j];
    sum += v[j];
  }
  return sum;
}

inline float squared_deviation(const float* v, float mean, std::int64_t n) {
  __m256 acc = _mm256_setzero_ps();
  const __m256 m = _mm256_set1_ps(mean);
  std::int64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    const __m256 d = _mm256_sub_ps(_mm256_loadu_ps(v + j), m);
    acc = _mm256_fmadd_ps(d, d, acc);
  }
  float sq = hsum(acc);
  for (; j < n; ++j) sq += (v[j] - mean) * (v[j] - mean);
  return sq;
}

}  // namespace

extern "C" void kernel(const float* x, const float* weight, const float* bias, const float* gn_weight,
                       const float* gn_bias, float* y) {
  using namespace task;
  constexpr std::int64_t GS = N / G;
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0f, x, K, weight, N, 0.0f, y, N);
#pragma omp parallel for schedule(static)
  for (std::int64_t r = 0; r < M * G; ++r) {
    float* v = y + r * GS;
    const std::int64_t c0 = (r % G) * GS;
    const float mean = swish_bias_group(v, bias + c0, GS) / GS;
    const float inv_std = 1.0f / std::sqrt(squared_deviation(v, mean, GS) / GS + static_cast<float>(eps));
#pragma omp simd
    for (std::int64_t j = 0; j < GS; ++j) v[j] = (v[j] - mean) * inv_std * gn_weight[c0 + j] + gn_bias[c0 + j];
  }
}
