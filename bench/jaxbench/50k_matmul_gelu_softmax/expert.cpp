// Matmul + GELU + Softmax: OpenBLAS sgemm for x·W straight into y, then one fused AVX2 pass per
// row while the row sits in L1: bias, tanh-form GELU (as v·sigmoid(2u)), the row max, exp and
// normalization, instead of four passes over the output. exp is a polynomial.
#include <cblas.h>
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "kforge_task.h"
#include "kforge/simd_math.h"

namespace {

using kforge::simd::exp_ps;
using kforge::simd::gelu_tanh;
using kforge::simd::gelu_tanh_ps;
using kforge::simd::hmax;
using kforge::simd::hsum;

// softmax(gelu(row + bias)) in place.
void gelu_softmax_row(float* row, const float* bias) {
  constexpr std::int64_t N = task::N, NV = N / 8 * 8;
  __m256 vmax = _mm256_set1_ps(-std::numeric_limits<float>::infinity());
  for (std::int64_t j = 0; j < NV; j += 8) {
    const __m256 g = gelu_tanh_ps(_mm256_add_ps(_mm256_loadu_ps(row + j), _mm256_loadu_ps(bias + j)));
    _mm256_storeu_ps(row + j, g);
    vmax = _mm256_max_ps(vmax, g);
  }
  float mx = hmax(vmax);
  for (std::int64_t j = NV; j < N; ++j) mx = std::max(mx, row[j] = gelu_tanh(row[j] + bias[j]));
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

extern "C" void kernel(const float* x, const float* weight, const float* bias, float* y) {
  using namespace task;
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0f, x, K, weight, N, 0.0f, y, N);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < M; ++i) gelu_softmax_row(y + i * N, bias);
}
