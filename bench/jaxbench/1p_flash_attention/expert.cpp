// Causal multi-head attention, hand-written in the flash-attention style: every head's keys are
// transposed once, then each block of query rows walks the key blocks up to the diagonal with an
// online softmax, so the S×S score matrix is never materialised and the blocks above the diagonal
// are never computed. AVX2/FMA micro-kernels; OpenMP over (query block, batch×head) work items,
// the longest rows first.
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "kforge_task.h"
#include "kforge/simd_math.h"

namespace {

using kforge::simd::exp2_ps;
using kforge::simd::hmax;
using kforge::simd::hsum;

using task::B;
using task::D;
using task::H;
using task::S;

constexpr std::int64_t MR = 6;   // query rows per micro-tile
constexpr std::int64_t NR = 16;  // keys (scores) or value columns (output) per micro-tile: two ymm
constexpr std::int64_t BQ = 48;  // query rows per block, a multiple of MR
constexpr std::int64_t BK = 64;  // keys per block, a multiple of NR
constexpr std::int64_t NKB = (S + BK - 1) / BK;
constexpr std::int64_t NQB = (S + BQ - 1) / BQ;
static_assert(D % NR == 0, "the micro-kernels tile the head dimension by 16");

// s[MR][NR] (row stride BK) = q[MR][D] (row stride D) · kt[D][NR] (row stride BK).
inline void qk_tile(const float* q, const float* kt, float* s) {
  __m256 acc[MR][2];
#pragma GCC unroll 6
  for (int r = 0; r < MR; ++r) acc[r][0] = acc[r][1] = _mm256_setzero_ps();
  for (std::int64_t d = 0; d < D; ++d) {
    const __m256 k0 = _mm256_loadu_ps(kt + d * BK);
    const __m256 k1 = _mm256_loadu_ps(kt + d * BK + 8);
#pragma GCC unroll 6
    for (int r = 0; r < MR; ++r) {
      const __m256 qb = _mm256_broadcast_ss(q + r * D + d);
      acc[r][0] = _mm256_fmadd_ps(qb, k0, acc[r][0]);
      acc[r][1] = _mm256_fmadd_ps(qb, k1, acc[r][1]);
    }
  }
#pragma GCC unroll 6
  for (int r = 0; r < MR; ++r) {
    _mm256_storeu_ps(s + r * BK, acc[r][0]);
    _mm256_storeu_ps(s + r * BK + 8, acc[r][1]);
  }
}

// acc[MR][NR] (row stride D) += p[MR][nk] (row stride BK) · v[nk][NR] (row stride D).
inline void pv_tile(const float* p, const float* v, float* acc, std::int64_t nk) {
  __m256 a[MR][2];
#pragma GCC unroll 6
  for (int r = 0; r < MR; ++r) {
    a[r][0] = _mm256_loadu_ps(acc + r * D);
    a[r][1] = _mm256_loadu_ps(acc + r * D + 8);
  }
  for (std::int64_t j = 0; j < nk; ++j) {
    const __m256 v0 = _mm256_loadu_ps(v + j * D);
    const __m256 v1 = _mm256_loadu_ps(v + j * D + 8);
#pragma GCC unroll 6
    for (int r = 0; r < MR; ++r) {
      const __m256 pb = _mm256_broadcast_ss(p + r * BK + j);
      a[r][0] = _mm256_fmadd_ps(pb, v0, a[r][0]);
      a[r][1] = _mm256_fmadd_ps(pb, v1, a[r][1]);
    }
  }
#pragma GCC unroll 6
  for (int r = 0; r < MR; ++r) {
    _mm256_storeu_ps(acc + r * D, a[r][0]);
    _mm256_storeu_ps(acc + r * D + 8, a[r][1]);
  }
}

// Per-thread scratch: one block of scaled queries, its scores and running output, row maxima and
// row sums.
struct Scratch {
  std::vector<float> q = std::vector<float>(BQ * D);
  std::vector<float> s = std::vector<float>(BQ * BK);
  std::vector<float> acc = std::vector<float>(BQ * D);
  std::vector<float> m = std::vector<float>(BQ);
  std::vector<float> l = std::vector<float>(BQ);
};

// One key block of one head, transposed to [D][BK] (zero past S).
void transpose_key_block(const float* k, std::int64_t kb, float* kt) {
  for (std::int64_t j = 0; j < BK; ++j) {
    const std::int64_t key = kb * BK + j;
    if (key < S)
      for (std::int64_t d = 0; d < D; ++d) kt[d * BK + j] = k[key * D + d];
    else
      for (std::int64_t d = 0; d < D; ++d) kt[d * BK + j] = 0.0f;
  }
}

// Query rows [i0, i0 + rows) of one head (q, v, o at the head's row 0) against keys [0, i0 + rows)
// (kt_head: the head's keys transposed per block).
void query_block(const float* q, const float* kt_head, const float* v, float* o, std::int64_t i0, std::int64_t rows,
                 Scratch& w) {
  const std::int64_t rows_pad = (rows + MR - 1) / MR * MR;
  // Scores come out in log2 units: exp(x·scale) = 2^(x·scale·log2 e), folded into q once.
  const float qscale = static_cast<float>(M_LOG2E / std::sqrt(static_cast<double>(D)));
  for (std::int64_t r = 0; r < rows_pad; ++r)
    for (std::int64_t d = 0; d < D; ++d) w.q[r * D + d] = r < rows ? q[(i0 + r) * D + d] * qscale : 0.0f;
  std::fill(w.acc.begin(), w.acc.begin() + rows_pad * D, 0.0f);
  std::fill(w.m.begin(), w.m.end(), -INFINITY);
  std::fill(w.l.begin(), w.l.end(), 0.0f);

  const std::int64_t last_key = i0 + rows - 1;
  for (std::int64_t j0 = 0; j0 <= last_key; j0 += BK) {
    const std::int64_t nk = std::min(BK, last_key + 1 - j0);  // keys any row of the block may see
    const std::int64_t ncols = (nk + NR - 1) / NR * NR;
    const float* kt = kt_head + (j0 / BK) * D * BK;
    for (std::int64_t r = 0; r < rows_pad; r += MR)
      for (std::int64_t c = 0; c < ncols; c += NR) qk_tile(w.q.data() + r * D, kt + c, w.s.data() + r * BK + c);

    for (std::int64_t r = 0; r < rows_pad; ++r) {
      float* s = w.s.data() + r * BK;
      // Causal mask: row i sees keys j ≤ i; padding rows see nothing.
      const std::int64_t seen = r < rows ? std::clamp<std::int64_t>(i0 + r - j0 + 1, 0, nk) : 0;
      if (seen == 0) {  // no key of this block is visible to the row: it contributes nothing
        std::fill(s, s + ncols, 0.0f);
        continue;
      }
      std::fill(s + seen, s + ncols, -INFINITY);
      __m256 mx = _mm256_set1_ps(-INFINITY);
      for (std::int64_t j = 0; j < ncols; j += 8) mx = _mm256_max_ps(mx, _mm256_loadu_ps(s + j));
      const float m_new = std::max(w.m[r], hmax(mx));
      const __m256 mb = _mm256_set1_ps(m_new);
      __m256 sum = _mm256_setzero_ps();
      for (std::int64_t j = 0; j < ncols; j += 8) {
        const __m256 p = exp2_ps(_mm256_sub_ps(_mm256_loadu_ps(s + j), mb));
        _mm256_storeu_ps(s + j, p);
        sum = _mm256_add_ps(sum, p);
      }
      if (m_new > w.m[r]) {  // the running maximum moved: rescale what was accumulated so far
        const float alpha = std::exp2(w.m[r] - m_new);
        w.l[r] *= alpha;
        const __m256 ab = _mm256_set1_ps(alpha);
        for (std::int64_t d = 0; d < D; d += 8)
          _mm256_storeu_ps(w.acc.data() + r * D + d, _mm256_mul_ps(ab, _mm256_loadu_ps(w.acc.data() + r * D + d)));
        w.m[r] = m_new;
      }
      w.l[r] += hsum(sum);
    }
    // Masked and padding entries are exactly 0, so all rows share the key count nk.
    for (std::int64_t r = 0; r < rows_pad; r += MR)
      for (std::int64_t c = 0; c < D; c += NR) pv_tile(w.s.data() + r * BK, v + j0 * D + c, w.acc.data() + r * D + c, nk);
  }
  for (std::int64_t r = 0; r < rows; ++r) {
    const float inv = 1.0f / w.l[r];
    for (std::int64_t d = 0; d < D; ++d) o[(i0 + r) * D + d] = w.acc[r * D + d] * inv;
  }
}

}  // namespace

extern "C" void kernel(const float* q, const float* k, const float* v, float* o) {
  // Every head's keys, transposed per block: [B·H][NKB][D][BK].
  std::vector<float> kt(B * H * NKB * D * BK);
#pragma omp parallel
  {
#pragma omp for collapse(2) schedule(static)
    for (std::int64_t bh = 0; bh < B * H; ++bh)
      for (std::int64_t kb = 0; kb < NKB; ++kb) transpose_key_block(k + bh * S * D, kb, kt.data() + (bh * NKB + kb) * D * BK);

    Scratch w;
    // Query blocks from the last (the most keys) to the first, so the cheap ones fill the end.
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t t = 0; t < NQB * B * H; ++t) {
      const std::int64_t qb = NQB - 1 - t / (B * H);
      const std::int64_t bh = t % (B * H);
      const std::int64_t off = bh * S * D;
      const std::int64_t i0 = qb * BQ;
      query_block(q + off, kt.data() + bh * NKB * D * BK, v + off, o + off, i0, std::min(BQ, S - i0), w);
    }
  }
}
