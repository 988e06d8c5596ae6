// Gemm + BatchNorm (eval) + Scaling + Softmax: OpenBLAS sgemm for x·W straight into y, then one
// fused pass per row while the row sits in L1. Bias, BatchNorm and scale fold into one per-feature
// affine map a·v + c (computed once per call); the pass applies it, takes the row max,
// exponentiates (AVX2 polynomial exp) and normalizes, instead of eight passes over the output.
#include <cblas.h>
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "kforge_task.h"
#include "kforge/simd_math.h"

namespace {

using kforge::simd::exp_ps;
using kforge::simd::hmax;
using kforge::simd::hsum;

// softmax(a·row + c) in place.
void affine_softmax_row(float* row, const float* a, const float* c) {
  constexpr std::int64_t N = task::N, NV = N / 8 * 8;
  __m256 vmax = _mm256_set1_ps(-std::numeric_limits<float>::infinity());
  for (std::int64_t j = 0; j < NV; j += 8) {
    const __m256 l = _mm256_fmadd_ps(_mm256_loadu_ps(a + j), _mm256_loadu_ps(row + j), _mm256_loadu_ps(c + j));
    _mm256_storeu_ps(row + j, l);
    vmax = _mm256_max_ps(vmax, l);
  }
  float mx = hmax(vmax);
  for (std::int64_t j = NV; j < N; ++j) mx = std::max(mx, row[j] = a[j] * row[j] + c[j]);
  const __m256 vmx = _mm256_set1_ps(mx);
  __m256 vsum = _mm256_setzero_ps();
  for (std::int64_t j = 0; j < NV; j += 8) {
    const __m256 e = exp_ps(_mm256_sub_ps(_mm256_loadu_ps(row + j), vmx));
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

extern "C" void kernel(const float* x, const float* weight, const float* bias, const float* bn_scale,
                       const float* bn_bias, const float* bn_mean, const float* bn_var, const float* scale,
                       float* y) {
  using namespace task;
  // logit = scale·(bn_scale·(x·W + b − mean)/sqrt(var + eps) + bn_bias) = a·(x·W) + c
  static std::vector<float> a(N), c(N);
  for (std::int64_t j = 0; j < N; ++j) {
    const float s = bn_scale[j] / std::sqrt(bn_var[j] + bn_eps);
    a[j] = scale[0] * s;
    c[j] = scale[0] * (s * (bias[j] - bn_mean[j]) + bn_bias[j]);
  }
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0f, x, K, weight, N, 0.0f, y, N);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < M; ++i) affine_softmax_row(y + i * N, a.data(), c.data());
}
