#pragma once
// For experts: the vector math they share (exp, exp2, tanh and the activations built on them,
// horizontal reductions), each written once. Every function works on eight floats (__m256) and
// needs AVX2 and FMA; on an AVX-512 machine the same code runs (the compiler may encode it in
// EVEX), with the same results. The accuracy quoted with each function was measured against the
// formula in double precision over every 61st float of the range named (about 36 million points;
// exp_ps over every float); tests/simd/simd_math_test.cpp holds each function to it, built as the
// experts are and for an AVX2-only target.
#if !defined(__AVX2__) || !defined(__FMA__)
#error "kforge/simd_math.h needs AVX2 and FMA: compile with -march=native on a CPU that has them"
#endif

#include <immintrin.h>

#include <cmath>
#include <numbers>

namespace kforge::simd {
// Named after the target, so that objects built for different ones (the test links an AVX-512
// build and an AVX2-only build) never share one copy of an inline function through the linker.
#if defined(__AVX512F__)
inline namespace avx512 {
#else
inline namespace avx2 {
#endif

// e^x, Cephes style: x = n·ln2 + r with |r| ≤ ln2/2, a degree-6 polynomial for e^r, 2^n through
// the exponent bits. Max error 1.26 ulp over [-87.3, 88.3].
// Outside it the argument is clamped: below -87.3 (and -inf) gives e^-87.3 ≈ 1.2e-38 (not 0),
// above 88.3 (and +inf) gives e^88.3 ≈ 2.1e38 (not inf), and NaN gives 1.2e-38 (not NaN).
inline __m256 exp_ps(__m256 x) {
  x = _mm256_min_ps(_mm256_max_ps(x, _mm256_set1_ps(-87.3f)), _mm256_set1_ps(88.3f));
  const __m256 n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504f)),
                                   _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), x);
  r = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), r);
  __m256 p = _mm256_set1_ps(1.9875691500e-4f);
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.3981999507e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3334519073e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1665795894e-2f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.6666665459e-1f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.0000001201e-1f));
  p = _mm256_fmadd_ps(p, _mm256_mul_ps(r, r), _mm256_add_ps(r, _mm256_set1_ps(1.0f)));
  const __m256i e =
      _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
  return _mm256_mul_ps(p, _mm256_castsi256_ps(e));
}

// 2^x for x ≤ 0 (softmax in log2 units): x = n + f with |f| ≤ 1/2, 2^f by its degree-7 Taylor
// series, 2^n through the exponent bits. Max error 0.84 ulp over [-126, 0]. Below -126
// (masked scores are -inf) and for NaN it gives exactly 0, which keeps denormals out of the sums.
// Not for x > 0 beyond small values: nothing clamps the exponent above.
inline __m256 exp2_ps(__m256 x) {
  const __m256 keep = _mm256_cmp_ps(x, _mm256_set1_ps(-126.0f), _CMP_GE_OQ);
  x = _mm256_max_ps(x, _mm256_set1_ps(-126.0f));
  const __m256 n = _mm256_round_ps(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  const __m256 f = _mm256_sub_ps(x, n);
  __m256 p = _mm256_set1_ps(1.5252734e-5f);
  p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(1.5403530e-4f));
  p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(1.3333558e-3f));
  p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(9.6181291e-3f));
  p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(5.5504109e-2f));
  p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(2.4022651e-1f));
  p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(6.9314718e-1f));
  p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(1.0f));
  const __m256i bits =
      _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
  return _mm256_and_ps(_mm256_mul_ps(p, _mm256_castsi256_ps(bits)), keep);
}

// tanh(x) = (e^2x − 1)/(e^2x + 1). Max absolute error 1.35e-7 over [-20, 20] (relative error grows
// near 0, where e^2x − 1 cancels); exactly ±1 for |x| ≥ 9 and ±inf, and -1 for NaN.
inline __m256 tanh_ps(__m256 x) {
  const __m256 e = exp_ps(_mm256_add_ps(x, x));
  const __m256 one = _mm256_set1_ps(1.0f);
  return _mm256_div_ps(_mm256_sub_ps(e, one), _mm256_add_ps(e, one));
}

// swish(v) = v·sigmoid(v) = v/(1 + e^−v). Max error 2.9 ulp over [-87, 88]; below, e^−v is clamped
// and the result (≈ 0) is off by less than 1e-35 absolute. NaN stays NaN.
inline __m256 swish_ps(__m256 v) {
  return _mm256_div_ps(
      v, _mm256_add_ps(_mm256_set1_ps(1.0f), exp_ps(_mm256_sub_ps(_mm256_setzero_ps(), v))));
}

// The tanh form of GELU, 0.5·v·(1 + tanh(u)) with u = sqrt(2/π)·(v + 0.044715·v³), computed as
// v/(1 + e^−2u). Max absolute error 5.2e-7 over [-20, 20]; max relative error 2.2e-6 for v ≥ -5,
// larger below, where the rounding of e^−2u's argument (up to 87) shows. NaN stays NaN.
inline __m256 gelu_tanh_ps(__m256 v) {
  const float c = static_cast<float>(std::sqrt(2.0 / std::numbers::pi));
  const __m256 v3 = _mm256_mul_ps(_mm256_mul_ps(v, v), v);
  const __m256 u =
      _mm256_mul_ps(_mm256_set1_ps(c), _mm256_fmadd_ps(_mm256_set1_ps(0.044715f), v3, v));
  const __m256 e = exp_ps(_mm256_mul_ps(_mm256_set1_ps(-2.0f), u));
  return _mm256_div_ps(v, _mm256_add_ps(_mm256_set1_ps(1.0f), e));
}

// The scalar twin of gelu_tanh_ps, for loop tails (std::tanh: correctly rounded to ~1 ulp).
inline float gelu_tanh(float v) {
  const float c = static_cast<float>(std::sqrt(2.0 / std::numbers::pi));
  return 0.5f * v * (1.0f + std::tanh(c * (v + 0.044715f * v * v * v)));
}

// mish(v) = v·tanh(softplus(v)) without forming log(1 + e^v): with u = 1 + e^v,
// tanh(log u) = (u² − 1)/(u² + 1), so mish(v) = v·t/(t + 2) with t = e^v·(e^v + 2): no
// cancellation for v ≪ 0 (t ≈ 2e^v). Above 20 it is v in f32. Max error 3.9 ulp over [-87, 30];
// below -87.3 e^v is clamped (the result is ≈ v·1.2e-38 instead of ≈ v·e^v). NaN stays NaN.
inline __m256 mish_ps(__m256 v) {
  const __m256 e = exp_ps(_mm256_min_ps(v, _mm256_set1_ps(20.0f)));
  const __m256 t = _mm256_mul_ps(e, _mm256_add_ps(e, _mm256_set1_ps(2.0f)));
  const __m256 m = _mm256_div_ps(_mm256_mul_ps(v, t), _mm256_add_ps(t, _mm256_set1_ps(2.0f)));
  return _mm256_blendv_ps(m, v, _mm256_cmp_ps(v, _mm256_set1_ps(20.0f), _CMP_GT_OQ));
}

// The scalar twin of mish_ps, for loop tails (std::exp; the same 3.9 ulp, which the formula sets).
inline float mish(float v) {
  if (v > 20.0f) return v;
  const float e = std::exp(v), t = e * (e + 2.0f);
  return v * t / (t + 2.0f);
}

// The sum of the eight lanes: (lo half + hi half), then pairs, then the last two.
inline float hsum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

// The largest of the eight lanes (with a NaN lane, the result depends on where it is).
inline float hmax(__m256 v) {
  __m128 m = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  m = _mm_max_ps(m, _mm_movehl_ps(m, m));
  m = _mm_max_ss(m, _mm_movehdup_ps(m));
  return _mm_cvtss_f32(m);
}

// Eight horizontal sums at once: lane h of the result is the sum of the lanes of a[h].
inline __m256 hsum8(const __m256 a[8]) {
  const __m256 t0 = _mm256_hadd_ps(a[0], a[1]), t1 = _mm256_hadd_ps(a[2], a[3]);
  const __m256 t2 = _mm256_hadd_ps(a[4], a[5]), t3 = _mm256_hadd_ps(a[6], a[7]);
  const __m256 u0 = _mm256_hadd_ps(t0, t1), u1 = _mm256_hadd_ps(t2, t3);
  return _mm256_add_ps(_mm256_permute2f128_ps(u0, u1, 0x20), _mm256_permute2f128_ps(u0, u1, 0x31));
}

}  // inline namespace avx512 or avx2
}  // namespace kforge::simd
