// 29k expert: GroupNorm(swish(x·W) + b) as one hand-tuned SGEMM (kforge/fused_gemm.h) whose
// epilogue (swish, kforge/simd_math.h's swish_ps, plus the bias) is applied while the last K
// block's C tile is still in registers, then one pass per group of N/G features while it sits in
// L1: the mean, a second sweep for the biased variance (two-pass, as the reference), and the
// normalise-and-affine. It replaced OpenBLAS's sgemm into y followed by a pass that also did swish
// and bias. (Normalising each thread's groups inside the GEMM's parallel region, its columns cut on
// group boundaries, saved the second region but measured 1.03x (1.00-1.09) and 1.00x (0.98-1.06)
// in the two orders on a busy machine: not taken.)
#include <immintrin.h>

#include <cmath>
#include <cstdint>

#include "kforge_task.h"
#include "kforge/fused_gemm.h"
#include "kforge/simd_math.h"

namespace {

namespace gemm = kforge::gemm;
namespace simd = kforge::simd;

// swish(v) + bias[j] on v = (x·W)[i, j]; swish_ps is AVX2, so a zmm goes by halves.
struct Epilogue {
  const float* bias;
  gemm::Vec operator()(gemm::Vec v, std::int64_t /*i*/, std::int64_t j) const {
    return gemm::vadd(gemm::by_halves(v, simd::swish_ps), gemm::vloadu(bias + j));
  }
  float operator()(float v, std::int64_t /*i*/, std::int64_t j) const { return v / (1.0f + std::exp(-v)) + bias[j]; }
};

inline float group_sum(const float* v, std::int64_t n) {
  __m256 acc = _mm256_setzero_ps();
  std::int64_t j = 0;
  for (; j + 8 <= n; j += 8) acc = _mm256_add_ps(acc, _mm256_loadu_ps(v + j));
  float sum = simd::hsum(acc);
  for (; j < n; ++j) sum += v[j];
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
  float sq = simd::hsum(acc);
  for (; j < n; ++j) sq += (v[j] - mean) * (v[j] - mean);
  return sq;
}

// GroupNorm over the G groups of one row of y, in place.
void group_norm(float* row, const float* gn_weight, const float* gn_bias) {
  using namespace task;
  constexpr std::int64_t GS = N / G;
  for (std::int64_t c0 = 0; c0 < N; c0 += GS) {
    float* v = row + c0;
    const float mean = group_sum(v, GS) / GS;
    const float inv_std = 1.0f / std::sqrt(squared_deviation(v, mean, GS) / GS + static_cast<float>(eps));
#pragma omp simd
    for (std::int64_t j = 0; j < GS; ++j) v[j] = (v[j] - mean) * inv_std * gn_weight[c0 + j] + gn_bias[c0 + j];
  }
}

}  // namespace

extern "C" void kernel(const float* x, const float* weight, const float* bias, const float* gn_weight,
                       const float* gn_bias, float* y) {
  using namespace task;
  gemm::gemm<M, K, N>(x, weight, y, Epilogue{bias});
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < M; ++i) group_norm(y + i * N, gn_weight, gn_bias);
}
