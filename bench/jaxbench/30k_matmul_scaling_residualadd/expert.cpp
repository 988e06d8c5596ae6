// 30k expert: 1.5·(x·W + b) (h·0.5 + h with h = x·W + b) as one hand-tuned SGEMM whose epilogue
// (bias, ×1.5) is applied while the last K block's C tile is still in registers: y is written once.
// The GEMM is 8p_gemm's (Goto/BLIS blocking, a 14x32 AVX-512 or 6x16 AVX2 register tile chosen at
// compile time), see there. It replaced OpenBLAS's sgemm with alpha = 1.5, beta = 1 over a y
// pre-filled with 1.5·b.
#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>

#include "kforge_task.h"

namespace {

using std::int64_t;

// The SIMD vector and the tile shape. Each k step of the micro-kernel loads NR/W vectors of B,
// broadcasts MR elements of A one at a time and does MR·NR/W FMAs, so it needs MR·NR/W
// accumulators + NR/W B vectors + 1 broadcast register.
#if defined(__AVX512F__)
// 32 zmm registers: 14×32 keeps 28 accumulators + 2 B vectors + 1 broadcast = 31 live.
using Vec = __m512;
constexpr int W = 16;
constexpr int MR = 14;
constexpr int NR = 32;
inline Vec vzero() { return _mm512_setzero_ps(); }
inline Vec vload(const float* p) { return _mm512_load_ps(p); }
inline Vec vloadu(const float* p) { return _mm512_loadu_ps(p); }
inline void vstore(float* p, Vec v) { _mm512_store_ps(p, v); }
inline void vstoreu(float* p, Vec v) { _mm512_storeu_ps(p, v); }
inline Vec vbroadcast(const float* p) { return _mm512_set1_ps(*p); }
inline Vec vfmadd(Vec a, Vec b, Vec c) { return _mm512_fmadd_ps(a, b, c); }
inline Vec vadd(Vec a, Vec b) { return _mm512_add_ps(a, b); }
#else
// 16 ymm registers: 6×16 keeps 12 accumulators + 2 B vectors + 1 broadcast = 15 live. 12
// independent FMA chains also cover the FMA latency (4 cycles × 2 pipes = 8 chains needed).
using Vec = __m256;
constexpr int W = 8;
constexpr int MR = 6;
constexpr int NR = 16;
inline Vec vzero() { return _mm256_setzero_ps(); }
inline Vec vload(const float* p) { return _mm256_load_ps(p); }
inline Vec vloadu(const float* p) { return _mm256_loadu_ps(p); }
inline void vstore(float* p, Vec v) { _mm256_store_ps(p, v); }
inline void vstoreu(float* p, Vec v) { _mm256_storeu_ps(p, v); }
inline Vec vbroadcast(const float* p) { return _mm256_broadcast_ss(p); }
inline Vec vfmadd(Vec a, Vec b, Vec c) { return _mm256_fmadd_ps(a, b, c); }
inline Vec vadd(Vec a, Vec b) { return _mm256_add_ps(a, b); }
#endif
constexpr int NV = NR / W;  // vectors per tile row

// The epilogue on v = (x·W)[i, j] + bias[j] as the last K block's tile is stored.
constexpr float kScale = 1.0f + static_cast<float>(task::scaling_factor);
#if defined(__AVX512F__)
inline Vec epilogue(Vec v) { return _mm512_mul_ps(v, _mm512_set1_ps(kScale)); }
#else
inline Vec epilogue(Vec v) { return _mm256_mul_ps(v, _mm256_set1_ps(kScale)); }
#endif
inline float epilogue1(float v) { return v * kScale; }

// Cache blocking, from 32 KiB L1d and 512 KiB L2 per core and a 32 MiB shared L3:
//  KC = 256: the B micro-panel (KC·NR·4 = 16 KiB with the 6×16 tile) takes half of L1, leaving
//            room for the A micro-panel being streamed (KC·MR·4 = 6 KiB) and the C tile.
//  MC = 288: the A block (MC·KC·4 = 288 KiB) stays resident in L2 beside the B micro-panels
//            that pass through it, with the rest of the 512 KiB for them and for C. A larger block
//            reuses each B micro-panel, which comes from L3, over more rows.
//  NC = 4096: the packed B panel (KC·NC·4 = 4 MiB per thread) sits in the shared L3.
constexpr int64_t KC = 256;
constexpr int64_t MC = 288 / MR * MR;
constexpr int64_t NC = 4096 / NR * NR;
static_assert(MC >= MR && NC >= NR);

constexpr int64_t cdiv(int64_t x, int64_t m) { return (x + m - 1) / m; }
constexpr int64_t round_up(int64_t x, int64_t m) { return cdiv(x, m) * m; }

constexpr int64_t tiles_m = cdiv(task::M, MR);
constexpr int64_t tiles_n = cdiv(task::N, NR);
constexpr int64_t kc_max = std::min(KC, task::K);
constexpr int64_t mc_max = std::min(MC, tiles_m * MR);

// The thread grid tm×tn: as many threads as can each get at least one tile, and among those
// grids the one that packs the least. A thread packs its share of A once per NC columns and its
// share of B once, K·(M/tm·⌈(N/tn)/NC⌉ + N/tn) floats.
struct Grid {
  int64_t tm, tn;
};

Grid thread_grid(int64_t threads) {
  Grid best{1, 1};
  double best_cost = 0;
  for (int64_t tm = 1; tm <= std::min(threads, tiles_m); ++tm) {
    const int64_t tn = std::min(threads / tm, tiles_n);
    const int64_t rows = cdiv(tiles_m, tm) * MR, cols = cdiv(tiles_n, tn) * NR;
    const double cost = double(rows) * double(cdiv(cols, NC)) + double(cols);
    const bool more_threads = tm * tn > best.tm * best.tn;
    if (more_threads || (tm * tn == best.tm * best.tn && cost < best_cost)) best = {tm, tn}, best_cost = cost;
  }
  return best;
}

// The packing buffers of all threads, allocated once and regrown only if a call needs more.
float* scratch(int64_t floats) {
  static float* pool = nullptr;
  static int64_t capacity = 0;
  if (floats > capacity) {
    std::free(pool);
    pool = static_cast<float*>(std::aligned_alloc(64, sizeof(float) * floats));
    capacity = floats;
  }
  return pool;
}

// A[0:mc, 0:kc] (row stride K) → MR-row micro-panels, each stored k-major: dst[k·MR + i].
// Full panels are transposed four k at a time: 4×4 blocks of rows, then a pair and a single row
// for the rest of MR; the partial panel at the M edge is copied element by element and zero-filled.
void pack_a(const float* a, int64_t mc, int64_t kc, float* dst) {
  constexpr int64_t lda = task::K;
  for (int64_t i0 = 0; i0 < mc; i0 += MR, dst += kc * MR) {
    const float* src = a + i0 * lda;
    const int64_t rows = std::min<int64_t>(MR, mc - i0);
    int64_t k = 0;
    if (rows == MR) {
      for (; k + 4 <= kc; k += 4) {
        float* d = dst + k * MR;
        int i = 0;
        for (; i + 4 <= MR; i += 4) {
          __m128 r0 = _mm_loadu_ps(src + (i + 0) * lda + k), r1 = _mm_loadu_ps(src + (i + 1) * lda + k);
          __m128 r2 = _mm_loadu_ps(src + (i + 2) * lda + k), r3 = _mm_loadu_ps(src + (i + 3) * lda + k);
          _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
          _mm_storeu_ps(d + 0 * MR + i, r0);
          _mm_storeu_ps(d + 1 * MR + i, r1);
          _mm_storeu_ps(d + 2 * MR + i, r2);
          _mm_storeu_ps(d + 3 * MR + i, r3);
        }
        if constexpr (MR % 4 >= 2) {
          const __m128 r0 = _mm_loadu_ps(src + i * lda + k), r1 = _mm_loadu_ps(src + (i + 1) * lda + k);
          const __m128 lo = _mm_unpacklo_ps(r0, r1), hi = _mm_unpackhi_ps(r0, r1);  // (k0 k0 k1 k1), (k2 k2 k3 k3)
          _mm_storel_pi(reinterpret_cast<__m64*>(d + 0 * MR + i), lo);
          _mm_storeh_pi(reinterpret_cast<__m64*>(d + 1 * MR + i), lo);
          _mm_storel_pi(reinterpret_cast<__m64*>(d + 2 * MR + i), hi);
          _mm_storeh_pi(reinterpret_cast<__m64*>(d + 3 * MR + i), hi);
          i += 2;
        }
        if constexpr (MR % 2 == 1)
          for (int64_t kk = 0; kk < 4; ++kk) d[kk * MR + i] = src[i * lda + k + kk];
      }
    }
    for (; k < kc; ++k)
      for (int64_t i = 0; i < MR; ++i) dst[k * MR + i] = i < rows ? src[i * lda + k] : 0.0f;
  }
}

// B[0:kc, 0:nc] (row stride N) → NR-column micro-panels, each stored row by row: dst[k·NR + j].
// Eight rows of B at a time across the whole width: the reads stream along the rows while the
// writes stay within a few lines of each panel. The partial panel at the N edge is zero-filled.
void pack_b(const float* b, int64_t nc, int64_t kc, float* dst) {
  constexpr int64_t ldb = task::N, rows = 8;
  const int64_t full = nc / NR * NR;
  for (int64_t k0 = 0; k0 < kc; k0 += rows) {
    const int64_t k1 = std::min(kc, k0 + rows);
    for (int64_t j = 0; j < full; j += NR)
      for (int64_t k = k0; k < k1; ++k)
        for (int v = 0; v < NV; ++v) vstore(dst + j * kc + k * NR + v * W, vloadu(b + k * ldb + j + v * W));
    if (full < nc)
      for (int64_t k = k0; k < k1; ++k)
        for (int64_t j = 0; j < NR; ++j) dst[full * kc + k * NR + j] = full + j < nc ? b[k * ldb + full + j] : 0.0f;
  }
}

// C[0:mr, 0:nr] (row stride N) = or += the product of one A and one B micro-panel.
template <bool accumulate, bool last>
void micro_kernel(int64_t kc, const float* __restrict ap, const float* __restrict bp, float* c, int64_t mr, int64_t nr,
                  const float* bias) {
  // The C tile is touched only after the k loop; fetching its lines now hides the L3/DRAM latency.
  for (int64_t i = 0; i < mr; ++i) {
    for (int64_t j = 0; j < nr; j += 16) _mm_prefetch(reinterpret_cast<const char*>(c + i * task::N + j), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(c + i * task::N + nr - 1), _MM_HINT_T0);
  }
  Vec acc[MR][NV];
#pragma GCC unroll 32
  for (int i = 0; i < MR; ++i)
#pragma GCC unroll 32
    for (int v = 0; v < NV; ++v) acc[i][v] = vzero();

#pragma GCC unroll 4
  for (int64_t k = 0; k < kc; ++k, ap += MR, bp += NR) {
    Vec b[NV];
#pragma GCC unroll 32
    for (int v = 0; v < NV; ++v) b[v] = vload(bp + v * W);
#pragma GCC unroll 32
    for (int i = 0; i < MR; ++i) {
      const Vec a = vbroadcast(ap + i);
#pragma GCC unroll 32
      for (int v = 0; v < NV; ++v) acc[i][v] = vfmadd(a, b[v], acc[i][v]);
    }
  }

  if (mr == MR && nr == NR) {
    Vec bv[NV];
    if constexpr (last)
#pragma GCC unroll 32
      for (int v = 0; v < NV; ++v) bv[v] = vloadu(bias + v * W);
#pragma GCC unroll 32
    for (int i = 0; i < MR; ++i)
#pragma GCC unroll 32
      for (int v = 0; v < NV; ++v) {
        float* p = c + i * task::N + v * W;
        Vec r = accumulate ? vadd(vloadu(p), acc[i][v]) : acc[i][v];
        if constexpr (last) r = epilogue(vadd(r, bv[v]));
        vstoreu(p, r);
      }
    return;
  }
  alignas(64) float tile[MR][NR];
#pragma GCC unroll 32
  for (int i = 0; i < MR; ++i)
#pragma GCC unroll 32
    for (int v = 0; v < NV; ++v) vstore(&tile[i][v * W], acc[i][v]);
  for (int64_t i = 0; i < mr; ++i)
    for (int64_t j = 0; j < nr; ++j) {
      float r = accumulate ? c[i * task::N + j] + tile[i][j] : tile[i][j];
      c[i * task::N + j] = last ? epilogue1(r + bias[j]) : r;
    }
}

// C[0:mc, 0:nc] (row stride N) = or += packed A block · packed B panel.
template <bool accumulate, bool last>
void macro_kernel(int64_t mc, int64_t nc, int64_t kc, const float* ap, const float* bp, float* c, const float* bias) {
  for (int64_t j = 0; j < nc; j += NR)
    for (int64_t i = 0; i < mc; i += MR)
      micro_kernel<accumulate, last>(kc, ap + i * kc, bp + j * kc, c + i * task::N + j, std::min<int64_t>(MR, mc - i),
                                     std::min<int64_t>(NR, nc - j), bias + j);
}

// One thread's share: C[m0:m1, n0:n1] = A[m0:m1, :] · B[:, n0:n1], packing into ap (an A block)
// and bp (a B panel).
void gemm_block(const float* a, const float* b, const float* bias, float* c, int64_t m0, int64_t m1, int64_t n0, int64_t n1,
                float* ap, float* bp) {
  using namespace task;
  for (int64_t jc = n0; jc < n1; jc += NC) {
    const int64_t nc = std::min(NC, n1 - jc);
    for (int64_t pc = 0; pc < K; pc += KC) {
      const int64_t kc = std::min(KC, K - pc);
      pack_b(b + pc * N + jc, nc, kc, bp);
      for (int64_t ic = m0; ic < m1; ic += MC) {
        const int64_t mc = std::min(MC, m1 - ic);
        pack_a(a + ic * K + pc, mc, kc, ap);
        const bool last = pc + kc == K;
        float* cb = c + ic * N + jc;
        if (pc == 0 && last) macro_kernel<false, true>(mc, nc, kc, ap, bp, cb, bias + jc);
        else if (pc == 0) macro_kernel<false, false>(mc, nc, kc, ap, bp, cb, bias + jc);
        else if (last) macro_kernel<true, true>(mc, nc, kc, ap, bp, cb, bias + jc);
        else macro_kernel<true, false>(mc, nc, kc, ap, bp, cb, bias + jc);
      }
    }
  }
}

}  // namespace

extern "C" void kernel(const float* a, const float* b, const float* bias, float* c) {
  using namespace task;
  // Waking a thread costs microseconds (far more on a busy machine), so each one must get at
  // least ~4 MFLOP (about 50 µs of work); the ci size runs on one.
  constexpr int64_t min_flops_per_thread = int64_t(1) << 22;
  const int64_t threads = std::clamp<int64_t>(2 * M * N * K / min_flops_per_thread, 1, omp_get_max_threads());
  const Grid grid = thread_grid(threads);
  // Per block: an A block, then a B panel as wide as its share of columns allows (64-byte aligned).
  const int64_t a_floats = round_up(mc_max * kc_max, 16);
  const int64_t b_floats = round_up(kc_max * std::min(NC, cdiv(tiles_n, grid.tn) * NR), 16);
  float* const pool = scratch((a_floats + b_floats) * grid.tm * grid.tn);

  // One block of the grid per thread (a smaller team than asked for would just take several).
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int64_t t = 0; t < grid.tm * grid.tn; ++t) {
    const int64_t ti = t / grid.tn, tj = t % grid.tn;
    // Balanced cuts on tile boundaries; the last row and column of tiles may be partial.
    const int64_t m0 = std::min(M, ti * tiles_m / grid.tm * MR), m1 = std::min(M, (ti + 1) * tiles_m / grid.tm * MR);
    const int64_t n0 = std::min(N, tj * tiles_n / grid.tn * NR), n1 = std::min(N, (tj + 1) * tiles_n / grid.tn * NR);
    float* const ap = pool + t * (a_floats + b_floats);
    gemm_block(a, b, bias, c, m0, m1, n0, n1, ap, ap + a_floats);
  }
}
