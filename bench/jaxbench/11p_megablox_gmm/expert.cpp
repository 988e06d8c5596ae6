// Grouped matmul, hand-tuned for AVX2/FMA: one parallel region for all groups instead of one
// BLAS call per group. Each thread takes an equal contiguous range of rows (cutting through
// groups where it must), so ragged, empty or huge groups cannot unbalance the threads.
// Within a group segment it is a blocked GEMM in the GotoBLAS manner: a KC×NC block of the
// expert's matrix is packed into 16-column panels (L2), an MC×KC block of rows into 6-row slivers
// (L2), and a 6×16 register tile multiplies a sliver by a panel, the panel staying in L1 while
// the slivers stream past it. Packing with zero padding lets the register tile always run full;
// only the store at a group's or the matrix's edge is partial.
#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <vector>

#include "kforge_task.h"

namespace {

constexpr std::int64_t MR = 6;    // rows of the register tile
constexpr std::int64_t NR = 16;   // columns of the register tile (two ymm)
constexpr std::int64_t KC = 256;  // K block: a packed panel is KC×16 floats = 16 KiB
constexpr std::int64_t NC = 192;  // columns per packed block of the expert matrix (192 KiB)
constexpr std::int64_t MC = 72;   // rows per packed block of lhs (72 KiB)

// A cache line of floats: vectors of these are 64-byte aligned, as the packed loads need.
struct alignas(64) Line {
  float v[16];
};

// Packs w[kc×nc] (leading dimension N) into ceil(nc/16) panels of kc×16, zero-padded.
void pack_rhs(const float* w, std::int64_t kc, std::int64_t nc, float* dst) {
  using namespace task;
  for (std::int64_t j = 0; j < nc; j += NR, dst += kc * NR) {
    const std::int64_t cols = std::min(NR, nc - j);
    for (std::int64_t k = 0; k < kc; ++k)
      for (std::int64_t n = 0; n < NR; ++n) dst[k * NR + n] = n < cols ? w[k * N + j + n] : 0.0f;
  }
}

// Packs a[mc×kc] (leading dimension K) into ceil(mc/6) slivers of kc×6, zero-padded.
void pack_lhs(const float* a, std::int64_t mc, std::int64_t kc, float* dst) {
  using namespace task;
  for (std::int64_t i = 0; i < mc; i += MR, dst += kc * MR) {
    const std::int64_t rows = std::min(MR, mc - i);
    for (std::int64_t k = 0; k < kc; ++k)
      for (std::int64_t r = 0; r < MR; ++r) dst[k * MR + r] = r < rows ? a[(i + r) * K + k] : 0.0f;
  }
}

// c[rows×cols] (+)= sliver · panel over kc; c has leading dimension N. The first K block writes
// c, the later ones add to it.
inline void tile(const float* sliver, const float* panel, std::int64_t kc, float* c, std::int64_t rows,
                 std::int64_t cols, bool accumulate) {
  using namespace task;
  __m256 acc[MR][2];
  for (auto& row : acc) row[0] = row[1] = _mm256_setzero_ps();
  for (std::int64_t k = 0; k < kc; ++k) {
    const __m256 b0 = _mm256_load_ps(panel + k * NR);
    const __m256 b1 = _mm256_load_ps(panel + k * NR + 8);
    for (std::int64_t i = 0; i < MR; ++i) {
      const __m256 a = _mm256_broadcast_ss(sliver + k * MR + i);
      acc[i][0] = _mm256_fmadd_ps(a, b0, acc[i][0]);
      acc[i][1] = _mm256_fmadd_ps(a, b1, acc[i][1]);
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
  alignas(32) float part[MR][NR];
  for (std::int64_t i = 0; i < MR; ++i) {
    _mm256_store_ps(part[i], acc[i][0]);
    _mm256_store_ps(part[i] + 8, acc[i][1]);
  }
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j) c[i * N + j] = accumulate ? c[i * N + j] + part[i][j] : part[i][j];
}

// out[rows×N] = lhs[rows×K] · w[K×N] for one segment of one group.
void segment(const float* lhs, const float* w, float* out, std::int64_t rows, float* packed_rhs, float* packed_lhs) {
  using namespace task;
  for (std::int64_t k0 = 0; k0 < K; k0 += KC) {
    const std::int64_t kc = std::min(KC, K - k0);
    for (std::int64_t j0 = 0; j0 < N; j0 += NC) {
      const std::int64_t nc = std::min(NC, N - j0);
      pack_rhs(w + k0 * N + j0, kc, nc, packed_rhs);
      for (std::int64_t i0 = 0; i0 < rows; i0 += MC) {
        const std::int64_t mc = std::min(MC, rows - i0);
        pack_lhs(lhs + i0 * K + k0, mc, kc, packed_lhs);
        for (std::int64_t j = 0; j < nc; j += NR)
          for (std::int64_t i = 0; i < mc; i += MR)
            tile(packed_lhs + i * kc, packed_rhs + j * kc, kc, out + (i0 + i) * N + j0 + j, std::min(MR, mc - i),
                 std::min(NR, nc - j), k0 > 0);
      }
    }
  }
}

}  // namespace

extern "C" void kernel(const float* lhs, const float* rhs, const std::int32_t* group_sizes, float* out) {
  using namespace task;
  std::vector<std::int64_t> group_start(G + 1, 0);
  for (std::int64_t g = 0; g < G; ++g) group_start[g + 1] = group_start[g] + group_sizes[g];

#pragma omp parallel
  {
    std::vector<Line> rhs_buffer(KC * ((std::min(NC, N) + NR - 1) / NR));
    std::vector<Line> lhs_buffer(KC * ((MC + MR - 1) / MR) * MR / NR + 1);
    float* packed_rhs = rhs_buffer.data()->v;
    float* packed_lhs = lhs_buffer.data()->v;

    const std::int64_t threads = omp_get_num_threads(), t = omp_get_thread_num();
    const std::int64_t begin = M * t / threads, end = M * (t + 1) / threads;
    // The group holding row `begin`: the last one starting at or before it (empty groups start
    // where their successor does and are passed over).
    std::int64_t g = std::upper_bound(group_start.begin(), group_start.end(), begin) - group_start.begin() - 1;
    for (std::int64_t row = begin; row < end; ++g) {
      const std::int64_t stop = std::min(end, group_start[g + 1]);
      if (stop > row) segment(lhs + row * K, rhs + g * K * N, out + row * N, stop - row, packed_rhs, packed_lhs);
      row = std::max(row, stop);
    }
  }
}
