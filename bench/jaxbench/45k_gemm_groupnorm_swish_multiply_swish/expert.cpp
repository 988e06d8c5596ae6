// Gemm + GroupNorm + Swish + Multiply + Swish: OpenBLAS sgemm for x·Wᵀ straight into y, then one
// fused AVX2 pass per row while it sits in L1: bias, each group's mean and variance, normalize,
// affine, swish, multiply, swish, instead of a dozen passes over the output. The sigmoids use a
// polynomial exp.
#include <cblas.h>
#include <immintrin.h>

#include <cmath>

#include "kforge_task.h"
#include "kforge/simd_math.h"

namespace {

using kforge::simd::hsum;
using kforge::simd::swish_ps;

constexpr std::int64_t GS = task::N / task::G;
static_assert(GS % 8 == 0, "the row pass handles a group as whole AVX2 vectors");

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
      const __m256 s = _mm256_mul_ps(swish_ps(n), _mm256_loadu_ps(mul + j));
      _mm256_storeu_ps(row + j, swish_ps(s));
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
