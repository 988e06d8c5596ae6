// Paged decode attention, hand-written (AVX2/FMA, OpenMP). A work item is one (sequence, kv head):
// its G = 8 query heads fill one vector lane each, so scores, row maxima and sums are lane-parallel
// with no horizontal work. Only the kv_len valid keys are read, page by page through the table
// (nothing is gathered or repeated); two passes: scores and softmax over K, then p·V.
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "kforge_task.h"
#include "kforge/simd_math.h"

namespace {

using kforge::simd::exp_ps;
using kforge::simd::hsum8;

using namespace task;

constexpr std::int64_t G = Hq / Hkv;
constexpr std::int64_t S = PPS * PS;
static_assert(G == 8, "one query head per lane of a 256-bit vector");
static_assert(D % 16 == 0);

struct Scratch {
  alignas(64) float p[S * G];  // scores, then probabilities: key-major, one lane per query head
  alignas(64) float o[G * D];  // unnormalized output rows
};

void attend(Scratch& w, const float* queries, const float* k_pages, const float* v_pages, std::int64_t len,
            const std::int32_t* pages, float* out, std::int64_t n, std::int64_t kvh) {
  const float* q = queries + (n * Hq + kvh * G) * D;  // G consecutive heads
  auto row = [&](const float* base, std::int64_t t) {
    return base + ((static_cast<std::int64_t>(pages[t / PS]) * PS + t % PS) * Hkv + kvh) * D;
  };

  // Scores: one key row against the G query rows, reduced to one vector (lane h = head h).
  const __m256 scale = _mm256_set1_ps(sm_scale);
  __m256 mx = _mm256_set1_ps(-INFINITY);
  for (std::int64_t t = 0; t < len; ++t) {
    const float* kt = row(k_pages, t);
    __m256 acc[8];
    for (auto& a : acc) a = _mm256_setzero_ps();
    for (std::int64_t d = 0; d < D; d += 8) {
      const __m256 kv = _mm256_loadu_ps(kt + d);
      for (int h = 0; h < 8; ++h) acc[h] = _mm256_fmadd_ps(_mm256_loadu_ps(q + h * D + d), kv, acc[h]);
    }
    const __m256 s = _mm256_mul_ps(hsum8(acc), scale);
    _mm256_store_ps(w.p + t * G, s);
    mx = _mm256_max_ps(mx, s);
  }
  __m256 sum = _mm256_setzero_ps();
  for (std::int64_t t = 0; t < len; ++t) {
    const __m256 e = exp_ps(_mm256_sub_ps(_mm256_load_ps(w.p + t * G), mx));
    _mm256_store_ps(w.p + t * G, e);
    sum = _mm256_add_ps(sum, e);
  }

  // o[h] = Σ_t p[t][h]·v[t], a page at a time: 4 heads × 16 columns in registers over its tokens.
  std::fill(w.o, w.o + G * D, 0.0f);
  for (std::int64_t t0 = 0; t0 < len; t0 += PS) {
    const std::int64_t nt = std::min(PS, len - t0);
    const float* vp = row(v_pages, t0);  // the page's tokens are Hkv·D floats apart
    for (int h0 = 0; h0 < 8; h0 += 4)
      for (std::int64_t c = 0; c < D; c += 16) {
        __m256 acc[4][2];
        for (int i = 0; i < 4; ++i) {
          acc[i][0] = _mm256_load_ps(w.o + (h0 + i) * D + c);
          acc[i][1] = _mm256_load_ps(w.o + (h0 + i) * D + c + 8);
        }
        for (std::int64_t j = 0; j < nt; ++j) {
          const float* vt = vp + j * Hkv * D + c;
          const __m256 v0 = _mm256_loadu_ps(vt), v1 = _mm256_loadu_ps(vt + 8);
          for (int i = 0; i < 4; ++i) {
            const __m256 pv = _mm256_broadcast_ss(w.p + (t0 + j) * G + h0 + i);
            acc[i][0] = _mm256_fmadd_ps(pv, v0, acc[i][0]);
            acc[i][1] = _mm256_fmadd_ps(pv, v1, acc[i][1]);
          }
        }
        for (int i = 0; i < 4; ++i) {
          _mm256_store_ps(w.o + (h0 + i) * D + c, acc[i][0]);
          _mm256_store_ps(w.o + (h0 + i) * D + c + 8, acc[i][1]);
        }
      }
  }

  alignas(32) float total[8];
  _mm256_store_ps(total, sum);
  for (int h = 0; h < 8; ++h) {
    const __m256 inv = _mm256_set1_ps(1.0f / total[h]);
    float* dst = out + (n * Hq + kvh * G + h) * D;
    for (std::int64_t d = 0; d < D; d += 8) _mm256_storeu_ps(dst + d, _mm256_mul_ps(inv, _mm256_load_ps(w.o + h * D + d)));
  }
}

}  // namespace

extern "C" void kernel(const float* queries, const float* k_pages, const float* v_pages, const std::int32_t* kv_lens,
                       const std::int32_t* page_indices, float* out) {
#pragma omp parallel
  {
    auto w = std::make_unique<Scratch>();
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t item = 0; item < N * Hkv; ++item) {
      const std::int64_t n = item / Hkv;
      attend(*w, queries, k_pages, v_pages, kv_lens[n], page_indices + n * PPS, out, n, item % Hkv);
    }
  }
}
