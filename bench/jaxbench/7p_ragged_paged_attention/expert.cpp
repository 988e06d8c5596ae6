// Ragged paged attention, hand-written (AVX2/FMA, OpenMP). A work item is up to BQ query rows of
// one slot for one kv head; its G = 8 query heads fill one vector lane each, so scores, maxima and
// sums are lane-parallel, and the causal limit (the same for the 8 heads of a row) bounds the keys
// each row touches. Keys are read page by page through the table, K and V straight from their
// interleaved heads (nothing gathered, split or repeated), in tiles of BK with an online softmax.
// Only the slots' valid rows are computed; the rest of the token buffer is zeroed. Relies on what
// the task guarantees: cu_q_lens non-decreasing up to T (rows of different slots are disjoint) and
// kv_len ≥ q_len (every row sees key 0).
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

#include "kforge_task.h"
#include "kforge/simd_math.h"

namespace {

using kforge::simd::exp_ps;
using kforge::simd::hsum8;

using namespace task;

constexpr std::int64_t G = Hq / Hkv;
constexpr std::int64_t BQ = 16;  // query rows per work item
constexpr std::int64_t BK = 32;  // keys per tile
static_assert(G == 8, "one query head per lane of a 256-bit vector");
static_assert(D % 16 == 0);

// The static per-slot query capacity (JAXBench's ACTIVE_Q_LENS); 0: the slot is never processed.
constexpr std::int64_t capacity(std::int64_t slot) {
  if (slot < NDEC) return 1;
  if (slot < NDEC + NPRE - 1) return CHUNK;
  if (slot == NDEC + NPRE - 1) return T - NDEC - (NPRE - 1) * CHUNK;
  return 0;
}

struct Item {
  std::int64_t slot, kvh, r0, nq, cost;
};

struct Scratch {
  alignas(64) float p[BQ * BK * G];  // scores, then probabilities: [row][key][head]
  alignas(64) float o[BQ * G * D];   // unnormalized output: [row][head][d]
  alignas(64) float m[BQ * G];       // running max per (row, head)
  alignas(64) float l[BQ * G];       // running sum per (row, head)
  alignas(64) float alpha[BQ * G];   // rescale of o for the current tile
  const float* k[BK];                // the tile's key rows
  const float* v[BK];                // the tile's value rows
};

void attend(Scratch& w, const float* queries, const float* kv_pages, const std::int32_t* pages, std::int64_t q_start,
            std::int64_t q_len, std::int64_t kv_len, const Item& it, float* out) {
  const std::int64_t first_limit = kv_len - q_len + it.r0;  // last key visible to the item's first row
  const std::int64_t keys = first_limit + it.nq;           // keys [0, keys) are visible to some row
  std::fill(w.o, w.o + it.nq * G * D, 0.0f);
  std::fill(w.m, w.m + it.nq * G, -INFINITY);
  std::fill(w.l, w.l + it.nq * G, 0.0f);
  const __m256 scale = _mm256_set1_ps(sm_scale);

  for (std::int64_t j0 = 0; j0 < keys; j0 += BK) {
    const std::int64_t nk = std::min(BK, keys - j0);
    for (std::int64_t j = 0; j < nk; ++j) {
      const std::int64_t t = j0 + j;
      w.k[j] = kv_pages + ((static_cast<std::int64_t>(pages[t / PS]) * PS + t % PS) * 2 * Hkv + 2 * it.kvh) * D;
      w.v[j] = w.k[j] + D;
    }
    for (std::int64_t i = 0; i < it.nq; ++i) {
      const std::int64_t visible = std::clamp<std::int64_t>(first_limit + i - j0 + 1, 0, nk);
      float* p = w.p + i * BK * G;
      const float* q = queries + ((q_start + it.r0 + i) * Hq + it.kvh * G) * D;  // the row's G heads
      __m256 mx = _mm256_set1_ps(-INFINITY);
      for (std::int64_t j = 0; j < visible; ++j) {
        __m256 acc[8];
        for (auto& a : acc) a = _mm256_setzero_ps();
        for (std::int64_t d = 0; d < D; d += 8) {
          const __m256 kv = _mm256_loadu_ps(w.k[j] + d);
          for (int h = 0; h < 8; ++h) acc[h] = _mm256_fmadd_ps(_mm256_loadu_ps(q + h * D + d), kv, acc[h]);
        }
        const __m256 s = _mm256_mul_ps(hsum8(acc), scale);
        _mm256_store_ps(p + j * G, s);
        mx = _mm256_max_ps(mx, s);
      }
      // Online softmax, lane-wise; a row that sees none of this tile keeps its state.
      const __m256 m_old = _mm256_load_ps(w.m + i * G);
      if (visible == 0) {
        _mm256_store_ps(w.alpha + i * G, _mm256_set1_ps(1.0f));
      } else {
        const __m256 m_new = _mm256_max_ps(m_old, mx);
        __m256 sum = _mm256_setzero_ps();
        for (std::int64_t j = 0; j < visible; ++j) {
          const __m256 e = exp_ps(_mm256_sub_ps(_mm256_load_ps(p + j * G), m_new));
          _mm256_store_ps(p + j * G, e);
          sum = _mm256_add_ps(sum, e);
        }
        const __m256 alpha = exp_ps(_mm256_sub_ps(m_old, m_new));
        _mm256_store_ps(w.alpha + i * G, alpha);
        _mm256_store_ps(w.l + i * G, _mm256_fmadd_ps(_mm256_load_ps(w.l + i * G), alpha, sum));
        _mm256_store_ps(w.m + i * G, m_new);
      }

      // o[i][h] = alpha·o[i][h] + Σ_j p[j][h]·v[j]: 4 heads × 16 columns in registers.
      for (int h0 = 0; h0 < 8; h0 += 4)
        for (std::int64_t c = 0; c < D; c += 16) {
          float* o = w.o + (i * G + h0) * D + c;
          __m256 acc[4][2];
          for (int h = 0; h < 4; ++h) {
            const __m256 a = _mm256_broadcast_ss(w.alpha + i * G + h0 + h);
            acc[h][0] = _mm256_mul_ps(a, _mm256_load_ps(o + h * D));
            acc[h][1] = _mm256_mul_ps(a, _mm256_load_ps(o + h * D + 8));
          }
          for (std::int64_t j = 0; j < visible; ++j) {
            const __m256 v0 = _mm256_loadu_ps(w.v[j] + c), v1 = _mm256_loadu_ps(w.v[j] + c + 8);
            for (int h = 0; h < 4; ++h) {
              const __m256 pv = _mm256_broadcast_ss(p + j * G + h0 + h);
              acc[h][0] = _mm256_fmadd_ps(pv, v0, acc[h][0]);
              acc[h][1] = _mm256_fmadd_ps(pv, v1, acc[h][1]);
            }
          }
          for (int h = 0; h < 4; ++h) {
            _mm256_store_ps(o + h * D, acc[h][0]);
            _mm256_store_ps(o + h * D + 8, acc[h][1]);
          }
        }
    }
  }

  for (std::int64_t i = 0; i < it.nq; ++i)
    for (std::int64_t h = 0; h < G; ++h) {
      const __m256 inv = _mm256_set1_ps(1.0f / w.l[i * G + h]);
      const float* o = w.o + (i * G + h) * D;
      float* dst = out + ((q_start + it.r0 + i) * Hq + it.kvh * G + h) * D;
      for (std::int64_t d = 0; d < D; d += 8) _mm256_storeu_ps(dst + d, _mm256_mul_ps(inv, _mm256_load_ps(o + d)));
    }
}

}  // namespace

extern "C" void kernel(const float* queries, const float* kv_pages, const std::int32_t* kv_lens,
                       const std::int32_t* page_indices, const std::int32_t* cu_q_lens, const std::int32_t* num_seqs,
                       float* out) {
  // Work items, the most expensive first (rows × keys they see), and the rows no slot writes.
  std::vector<Item> items;
  std::vector<char> written(T, 0);
  const std::int64_t slots = std::min<std::int64_t>(num_seqs[0], NDEC + NPRE);
  for (std::int64_t slot = 0; slot < slots; ++slot) {
    const std::int64_t q_start = cu_q_lens[slot], q_len = cu_q_lens[slot + 1] - q_start;
    const std::int64_t rows = std::min(capacity(slot), q_len);
    std::fill(written.begin() + q_start, written.begin() + q_start + std::max<std::int64_t>(rows, 0), 1);
    for (std::int64_t r0 = 0; r0 < rows; r0 += BQ) {
      const std::int64_t nq = std::min(BQ, rows - r0);
      const std::int64_t cost = nq * (kv_lens[slot] - q_len + r0 + (nq + 1) / 2);
      for (std::int64_t kvh = 0; kvh < Hkv; ++kvh) items.push_back({slot, kvh, r0, nq, cost});
    }
  }
  std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.cost > b.cost; });

#pragma omp parallel
  {
#pragma omp for schedule(static) nowait
    for (std::int64_t row = 0; row < T; ++row)
      if (!written[row]) std::memset(out + row * Hq * D, 0, sizeof(float) * Hq * D);
    auto w = std::make_unique<Scratch>();
#pragma omp for schedule(dynamic, 1)
    for (std::size_t n = 0; n < items.size(); ++n) {
      const Item& it = items[n];
      const std::int64_t q_start = cu_q_lens[it.slot];
      attend(*w, queries, kv_pages, page_indices + it.slot * PPS, q_start, cu_q_lens[it.slot + 1] - q_start,
             kv_lens[it.slot], it, out);
    }
  }
}
