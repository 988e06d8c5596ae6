// RMSNorm, hand-written: one read of each row from memory (the row, 16 KiB at the cpu size, stays
// in L1 between the sum of squares and the scaling pass) and non-temporal stores for y, so the
// output is written without first being read into the cache. AVX2/FMA, rows split over threads.
#include <immintrin.h>

#include <cmath>

#include "kforge_task.h"
#include "kforge/simd_math.h"

namespace {

using kforge::simd::hsum;

// Rows are 32-byte aligned (the buffers are 64-byte aligned), as the aligned streaming stores need.
static_assert(task::D % 32 == 0, "rows must be a whole number of 32-float blocks");

}  // namespace

extern "C" void kernel(const float* x, const float* scale, float* y) {
  using namespace task;
#pragma omp parallel
  {
#pragma omp for schedule(static)
    for (std::int64_t row = 0; row < B * S; ++row) {
      const float* xr = x + row * D;
      float* yr = y + row * D;
      // Four independent accumulators hide the FMA latency.
      __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
      __m256 acc2 = _mm256_setzero_ps(), acc3 = _mm256_setzero_ps();
      for (std::int64_t d = 0; d < D; d += 32) {
        __m256 v0 = _mm256_load_ps(xr + d), v1 = _mm256_load_ps(xr + d + 8);
        __m256 v2 = _mm256_load_ps(xr + d + 16), v3 = _mm256_load_ps(xr + d + 24);
        acc0 = _mm256_fmadd_ps(v0, v0, acc0);
        acc1 = _mm256_fmadd_ps(v1, v1, acc1);
        acc2 = _mm256_fmadd_ps(v2, v2, acc2);
        acc3 = _mm256_fmadd_ps(v3, v3, acc3);
      }
      const float sum_sq = hsum(_mm256_add_ps(_mm256_add_ps(acc0, acc1), _mm256_add_ps(acc2, acc3)));
      const __m256 inv_rms = _mm256_set1_ps(1.0f / std::sqrt(sum_sq / static_cast<float>(D) + eps));
      for (std::int64_t d = 0; d < D; d += 8) {
        __m256 v = _mm256_mul_ps(_mm256_load_ps(xr + d), inv_rms);
        _mm256_stream_ps(yr + d, _mm256_mul_ps(v, _mm256_load_ps(scale + d)));
      }
    }
    // Streaming stores are weakly ordered: make them visible before the kernel returns.
    _mm_sfence();
  }
}
