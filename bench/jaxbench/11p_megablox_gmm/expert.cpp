// Grouped matmul, hand-tuned for AVX2/FMA: one parallel region for all groups instead of one
// BLAS call (and one thread barrier) per group.
//
// Work items are groups, or row chunks of the largest ones, handed out dynamically largest first,
// so ragged, empty or hot groups cannot unbalance the threads and a thread that loses its core
// for a while does not hold the other one up. Within an item it is a blocked GEMM: a KC×NC block
// of the expert's matrix is packed into 16-column panels (kept in L2, each panel in L1 while in
// use), and a 6×16 register tile runs down MC rows of lhs read in place.
#include <immintrin.h>

#include <algorithm>
#include <vector>

#include "kforge_task.h"

namespace {

constexpr std::int64_t MR = 6;      // rows of the register tile
constexpr std::int64_t NR = 16;     // columns of the register tile (two ymm)
constexpr std::int64_t KC = 256;    // K block: a packed panel is KC×16 floats = 16 KiB
constexpr std::int64_t NC = 192;    // columns per packed block of the expert matrix (192 KiB)
constexpr std::int64_t MC = 120;    // rows of lhs per pass over a packed block (120 KiB of lhs)
constexpr std::int64_t CHUNK = 384; // the most rows of one group in one work item

// A cache line of floats: vectors of these are 64-byte aligned, as the packed loads need.
struct alignas(64) Line {
  float v[16];
};

// Packs w[kc×nc] (leading dimension N) into ceil(nc/16) panels of kc×16, zero-padded. Rows of w
// are read in order, one whole row at a time, so the copy streams from memory.
void pack_rhs(const float* w, std::int64_t kc, std::int64_t nc, float* dst) {
  using namespace task;
  const std::int64_t full = nc / NR * NR;
  for (std::int64_t k = 0; k < kc; ++k) {
    const float* row = w + k * N;
    for (std::int64_t j = 0; j < full; j += NR) {
      _mm256_store_ps(dst + j * kc + k * NR, _mm256_loadu_ps(row + j));
      _mm256_store_ps(dst + j * kc + k * NR + 8, _mm256_loadu_ps(row + j + 8));
    }
    if (full < nc)
      for (std::int64_t n = 0; n < NR; ++n) dst[full * kc + k * NR + n] = full + n < nc ? row[full + n] : 0.0f;
  }
}

// c[rows×cols] (+)= a[6×kc] · panel[kc×16]; a has leading dimension lda, c leading dimension N.
// The first K block writes c, the later ones add to it. A partial tile (fewer rows or columns)
// is computed in full, from zero-padded rows, and only its valid part is stored.
void tile(const float* a, std::int64_t lda, const float* panel, std::int64_t kc, float* c, std::int64_t rows,
          std::int64_t cols, bool accumulate) {
  using namespace task;
  __m256 acc[MR][2];
  for (std::int64_t i = 0; i < MR; ++i) acc[i][0] = acc[i][1] = _mm256_setzero_ps();
  // The tile of c is needed after the K loop: start fetching it now.
  for (std::int64_t i = 0; i < MR && i < rows; ++i) _mm_prefetch(reinterpret_cast<const char*>(c + i * N), _MM_HINT_T0);
#pragma GCC unroll 4
  for (std::int64_t k = 0; k < kc; ++k) {
    const __m256 b0 = _mm256_load_ps(panel + k * NR);
    const __m256 b1 = _mm256_load_ps(panel + k * NR + 8);
    for (std::int64_t i = 0; i < MR; ++i) {
      const __m256 ai = _mm256_broadcast_ss(a + i * lda + k);
      acc[i][0] = _mm256_fmadd_ps(ai, b0, acc[i][0]);
      acc[i][1] = _mm256_fmadd_ps(ai, b1, acc[i][1]);
    }
  }
  if (rows == MR && cols == NR) {
    for (std::int64_t i = 0; i < MR; ++i) {
      float* ci = c + i * N;
      if (accumulate) {
        acc[i][0] = _mm256_add_ps(acc[i][0], _mm256_loadu_ps(ci));
        acc[i][1] = _mm256_add_ps(acc[i][1], _mm256_loadu_ps(ci + 8));
      }
      _mm256_storeu_ps(ci, acc[i][0]);
      _mm256_storeu_ps(ci + 8, acc[i][1]);
    }
    return;
  }
  // Masked loads and stores cover a partial tile's columns. (Spilling the accumulators to a
  // buffer instead makes GCC 12 keep them in memory throughout the K loop.)
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256i lo = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(cols)), lane);
  const __m256i hi = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(cols - 8)), lane);
  for (std::int64_t i = 0; i < MR && i < rows; ++i) {
    float* ci = c + i * N;
    if (accumulate) {
      acc[i][0] = _mm256_add_ps(acc[i][0], _mm256_maskload_ps(ci, lo));
      acc[i][1] = _mm256_add_ps(acc[i][1], _mm256_maskload_ps(ci + 8, hi));
    }
    _mm256_maskstore_ps(ci, lo, acc[i][0]);
    _mm256_maskstore_ps(ci + 8, hi, acc[i][1]);
  }
}

// out[rows×N] = lhs[rows×K] · w[K×N]: rows of one group. Rows are read in place, except a last
// partial tile's, which are copied into `tail` (6×KC, zero-padded) so no row past them is read.
void segment(const float* lhs, const float* w, float* out, std::int64_t rows, float* packed, float* tail) {
  using namespace task;
  const std::int64_t full_rows = rows / MR * MR;
  for (std::int64_t k0 = 0; k0 < K; k0 += KC) {
    const std::int64_t kc = std::min(KC, K - k0);
    if (full_rows < rows) {
      std::fill(tail, tail + MR * KC, 0.0f);
      for (std::int64_t i = full_rows; i < rows; ++i) std::copy_n(lhs + i * K + k0, kc, tail + (i - full_rows) * KC);
    }
    for (std::int64_t j0 = 0; j0 < N; j0 += NC) {
      const std::int64_t nc = std::min(NC, N - j0);
      pack_rhs(w + k0 * N + j0, kc, nc, packed);
      for (std::int64_t i0 = 0; i0 < rows; i0 += MC) {
        const std::int64_t mc = std::min(MC, rows - i0);
        for (std::int64_t j = 0; j < nc; j += NR)
          for (std::int64_t i = i0; i < i0 + mc; i += MR) {
            const bool partial = i >= full_rows;
            tile(partial ? tail : lhs + i * K + k0, partial ? KC : K, packed + j * kc, kc, out + i * N + j0 + j,
                 std::min(MR, rows - i), std::min(NR, nc - j), k0 > 0);
          }
      }
    }
  }
}

struct Item {
  std::int64_t group, row, rows;
};

}  // namespace

extern "C" void kernel(const float* lhs, const float* rhs, const std::int32_t* group_sizes, float* out) {
  using namespace task;
  std::vector<Item> items;
  for (std::int64_t g = 0, row = 0; g < G; row += group_sizes[g++])
    for (std::int64_t r = 0; r < group_sizes[g]; r += CHUNK)
      items.push_back({g, row + r, std::min<std::int64_t>(CHUNK, group_sizes[g] - r)});
  std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.rows > b.rows; });
  const auto count = static_cast<std::int64_t>(items.size());

#pragma omp parallel
  {
    std::vector<Line> packed(KC * ((std::min(NC, N) + NR - 1) / NR));
    std::vector<Line> tail(KC * MR / NR);
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t i = 0; i < count; ++i) {
      const Item& it = items[i];
      segment(lhs + it.row * K, rhs + it.group * K * N, out + it.row * N, it.rows, packed.data()->v, tail.data()->v);
    }
  }
}
