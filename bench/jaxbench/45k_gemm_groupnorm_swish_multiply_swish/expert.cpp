// Gemm + GroupNorm + Swish + Multiply + Swish: OpenBLAS sgemm for x·Wᵀ straight into y, then one
// fused AVX2 pass per row while it sits in L1: bias, each group's mean and variance, normalize,
// affine, swish, multiply, swish, instead of a dozen passes over the output. The sigmoids use a
// polynomial exp.
#include <cblas.h>
#include <immintrin.h>

#include <cmath>

#include "kforge_task.h"

namespace {

constexpr std::int64_t GS = task::N / task::G;
static_assert(GS % 8 == 0, "the row pass handles a group as whole AVX2 vectors");

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

inline __m256 swish_avx2(__m256 v) {
  const __m256 one = _mm256_set1_ps(1.0f);
  return _mm256_div_ps(v, _mm256_add_ps(one, exp_avx2(_mm256_sub_ps(_mm256_setzero_ps(), v))));
}

inline float hsum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

void epilogue_row(float* row, const float* bias, const float* gn_weight, const float* gn_bias, const float* mul) {
  for (std::int64_t g0 = 0; g0 < task::N; g0 += GS) {
    __m256 vsum = _mm256_setzero_ps();
    for (std::int64_t j = g0; j < g0 + GS; j += 8) {
      const __m256 h = _mm256_add_ps(_mm256_loadu_ps(row + j), _mm256_loadu_ps(bias + j));
      _mm256_storeu_ps(row + j, h);
      vsum = _mm256_add_ps(vsum, h);
    }
    const __m256 mean = _mm256_set1_ps(hsum(vsum) / GS);
    __m256 vsq = _mm256_setzero_ps();
    for (std::int64_t j = g0; j < g0 + GS; j += 8) {
      const __m256 d = _mm256_sub_ps(_mm256_loadu_ps(row + j), mean);
      vsq = _mm256_fmadd_ps(d, d, vsq);
    }
    const __m256 inv = _mm256_set1_ps(1.0f / std::sqrt(hsum(vsq) / GS + task::eps));
    for (std::int64_t j = g0; j < g0 + GS; j += 8) {
      const __m256 d = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(row + j), mean), inv);
      const __m256 n = _mm256_fmadd_ps(d, _mm256_loadu_ps(gn_weight + j), _mm256_loadu_ps(gn_bias + j));
      const __m256 s = _mm256_mul_ps(swish_avx2(n), _mm256_loadu_ps(mul + j));
      _mm256_storeu_ps(row + j, swish_avx2(s));
    }
  }
}

}  // namespace

extern "C" void kernel(const float* x, const float* gemm_weight, const float* gemm_bias, const float* gn_weight,
                       const float* gn_bias, const float* multiply_weight, float* y) {
  using namespace task;
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, M, N, K, 1.0f, x, K, gemm_weight, K, 0.0f, y, N);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < M; ++i) epilogue_row(y + i * N, gemm_bias, gn_weight, gn_bias, multiply_weight);
}
