// Causal GQA attention, hand-written: flash-style tiles with an online softmax (AVX2/FMA, OpenMP).
// One work item is a block of BQ query positions for all the query heads that share a kv head, so
// each K/V tile is loaded once for G·BQ rows. Key tiles past the block's last query position are
// never touched (the causal half of the dense work is skipped), and nothing S×S is materialized.
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "kforge_task.h"
#include "kforge/simd_math.h"

namespace {

using kforge::simd::exp_ps;
using kforge::simd::hmax;
using kforge::simd::hsum;

using namespace task;

constexpr std::int64_t G = Hq / Hkv;  // query heads per kv head
constexpr std::int64_t BQ = 12;       // query positions per work item
constexpr std::int64_t BK = 32;       // keys per tile
constexpr std::int64_t M = G * BQ;    // rows of a work item; row r is head r / BQ, position r % BQ
constexpr int R = 6;                  // rows per register tile: 6×16 outputs in 12 accumulators
constexpr std::int64_t kQBlocks = (S + BQ - 1) / BQ;
static_assert(Hq % Hkv == 0 && D % 16 == 0 && BK % 16 == 0 && M % R == 0);

// Per-thread tiles (about 125 KiB at M = 96, D = 128: they stay in L2).
struct Scratch {
  alignas(64) float q[M * D];   // the work item's query rows
  alignas(64) float o[M * D];   // unnormalized output rows
  alignas(64) float kt[D * BK];  // the key tile, transposed
  alignas(64) float s[M * BK];  // scores, then probabilities
  alignas(64) float m[M];       // running row max
  alignas(64) float l[M];       // running row sum
  alignas(64) float alpha[M];   // rescale of o for the current tile
};

// s[r][0:BK] = q[r] · kt for rows r..r+R-1: an R×16 register tile per 16 keys.
inline void scores(Scratch& w, std::int64_t r) {
  for (std::int64_t c = 0; c < BK; c += 16) {
    __m256 acc[R][2];
    for (auto& a : acc) a[0] = a[1] = _mm256_setzero_ps();
    for (std::int64_t d = 0; d < D; ++d) {
      const __m256 k0 = _mm256_load_ps(w.kt + d * BK + c), k1 = _mm256_load_ps(w.kt + d * BK + c + 8);
      for (int i = 0; i < R; ++i) {
        const __m256 qv = _mm256_broadcast_ss(w.q + (r + i) * D + d);
        acc[i][0] = _mm256_fmadd_ps(qv, k0, acc[i][0]);
        acc[i][1] = _mm256_fmadd_ps(qv, k1, acc[i][1]);
      }
    }
    for (int i = 0; i < R; ++i) {
      _mm256_store_ps(w.s + (r + i) * BK + c, acc[i][0]);
      _mm256_store_ps(w.s + (r + i) * BK + c + 8, acc[i][1]);
    }
  }
}

// o[r..r+R-1] = alpha·o + p · v_tile over the tile's nk keys, 16 columns of D at a time.
inline void accumulate(Scratch& w, std::int64_t r, const float* vt, std::int64_t nk) {
  for (std::int64_t c = 0; c < D; c += 16) {
    __m256 acc[R][2];
    for (int i = 0; i < R; ++i) {
      const __m256 a = _mm256_broadcast_ss(w.alpha + r + i);
      acc[i][0] = _mm256_mul_ps(a, _mm256_load_ps(w.o + (r + i) * D + c));
      acc[i][1] = _mm256_mul_ps(a, _mm256_load_ps(w.o + (r + i) * D + c + 8));
    }
    for (std::int64_t j = 0; j < nk; ++j) {
      const __m256 v0 = _mm256_loadu_ps(vt + j * D + c), v1 = _mm256_loadu_ps(vt + j * D + c + 8);
      for (int i = 0; i < R; ++i) {
        const __m256 p = _mm256_broadcast_ss(w.s + (r + i) * BK + j);
        acc[i][0] = _mm256_fmadd_ps(p, v0, acc[i][0]);
        acc[i][1] = _mm256_fmadd_ps(p, v1, acc[i][1]);
      }
    }
    for (int i = 0; i < R; ++i) {
      _mm256_store_ps(w.o + (r + i) * D + c, acc[i][0]);
      _mm256_store_ps(w.o + (r + i) * D + c + 8, acc[i][1]);
    }
  }
}

// One work item: query positions i0.. of batch b, all G heads of kv head kvh.
void attend_block(Scratch& w, const float* q, const float* k, const float* v, float* out, std::int64_t b,
                  std::int64_t kvh, std::int64_t i0) {
  const std::int64_t nq = std::min(BQ, S - i0);
  for (std::int64_t g = 0; g < G; ++g) {
    const float* src = q + ((b * Hq + kvh * G + g) * S + i0) * D;
    std::copy(src, src + nq * D, w.q + g * BQ * D);
    std::fill(w.q + (g * BQ + nq) * D, w.q + (g + 1) * BQ * D, 0.0f);  // padding rows, never written out
  }
  std::fill(w.o, w.o + M * D, 0.0f);
  std::fill(w.m, w.m + M, -INFINITY);
  std::fill(w.l, w.l + M, 0.0f);
  const float* kh = k + (b * Hkv + kvh) * S * D;
  const float* vh = v + (b * Hkv + kvh) * S * D;

  for (std::int64_t j0 = 0; j0 < i0 + nq; j0 += BK) {
    const std::int64_t nk = std::min(BK, S - j0);
    for (std::int64_t j = 0; j < BK; ++j)
      for (std::int64_t d = 0; d < D; ++d) w.kt[d * BK + j] = j < nk ? kh[(j0 + j) * D + d] : 0.0f;
    for (std::int64_t r = 0; r < M; r += R) scores(w, r);

    // Keys past a row's position (and padding keys past S) only occur in the last tiles.
    if (j0 + BK - 1 > i0)
      for (std::int64_t r = 0; r < M; ++r) {
        const std::int64_t visible = std::clamp<std::int64_t>(i0 + r % BQ - j0 + 1, 0, nk);
        std::fill(w.s + r * BK + visible, w.s + (r + 1) * BK, -INFINITY);
      }

    // Online softmax: new row max, the rescale of what was accumulated so far, p = exp(s - max).
    for (std::int64_t r = 0; r < M; ++r) {
      __m256 mx = _mm256_load_ps(w.s + r * BK);
      for (std::int64_t j = 8; j < BK; j += 8) mx = _mm256_max_ps(mx, _mm256_load_ps(w.s + r * BK + j));
      const float m_new = std::max(w.m[r], hmax(mx));
      const __m256 mv = _mm256_set1_ps(m_new);
      __m256 sum = _mm256_setzero_ps();
      for (std::int64_t j = 0; j < BK; j += 8) {
        const __m256 p = exp_ps(_mm256_sub_ps(_mm256_load_ps(w.s + r * BK + j), mv));
        _mm256_store_ps(w.s + r * BK + j, p);
        sum = _mm256_add_ps(sum, p);
      }
      w.alpha[r] = w.m[r] == m_new ? 1.0f : std::exp(w.m[r] - m_new);
      w.l[r] = w.l[r] * w.alpha[r] + hsum(sum);
      w.m[r] = m_new;
    }
    for (std::int64_t r = 0; r < M; r += R) accumulate(w, r, vh + j0 * D, nk);
  }

  for (std::int64_t g = 0; g < G; ++g)
    for (std::int64_t i = 0; i < nq; ++i) {
      const std::int64_t r = g * BQ + i;
      const __m256 inv = _mm256_set1_ps(1.0f / w.l[r]);
      float* dst = out + ((b * Hq + kvh * G + g) * S + i0 + i) * D;
      for (std::int64_t d = 0; d < D; d += 8) _mm256_storeu_ps(dst + d, _mm256_mul_ps(inv, _mm256_load_ps(w.o + r * D + d)));
    }
}

}  // namespace

extern "C" void kernel(const float* q, const float* k, const float* v, float* out) {
#pragma omp parallel
  {
    auto w = std::make_unique<Scratch>();
    // Later query blocks see more keys: hand them out first so the tail of the schedule is short.
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t item = 0; item < B * Hkv * kQBlocks; ++item) {
      const std::int64_t qb = kQBlocks - 1 - item / (B * Hkv), bh = item % (B * Hkv);
      attend_block(*w, q, k, v, out, bh / Hkv, bh % Hkv, qb * BQ);
    }
  }
}
