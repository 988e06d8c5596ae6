#pragma once
// For experts: one hand-tuned SGEMM C = A·B (f32, row-major), with an epilogue applied to each C
// tile while the last K block still holds it in registers, so an elementwise tail costs no second
// pass over C. The GEMM was 8p_gemm's expert; 19k, 27k and 30k held copies of it.
//
// Threads (gemm): C is cut into a tm×tn grid of blocks on micro-tile boundaries, one block per
// thread, and every thread runs a complete GEMM on its block with its own packing buffers. There
// is no barrier inside: on a busy machine a descheduled thread delays only itself, never a team
// that waits at a barrier. The grid minimises what each thread packs (see thread_grid).
//
// Within a thread (gemm_block), Goto/BLIS blocking, loops from the outside in:
//   jc: NC columns of B and C    — the packed B panel (KC×NC) lives in L3
//   pc: KC rows of B, cols of A  — a rank-KC update of the C block; the first stores, the rest add
//   ic: MC rows of A and C       — the packed A block (MC×KC) stays in L2
//   jr: NR columns               — one packed B micro-panel (KC×NR) stays in L1 across the ir loop
//   ir: MR rows                  — the register-tiled micro-kernel: an MR×NR tile of C in registers
// Packing lays A out as MR-row micro-panels (column by column) and B as NR-column micro-panels
// (row by row), so the micro-kernel reads both with unit stride; the panels are zero-padded to
// whole tiles, and partial tiles at the M and N edges go through a small staging tile.
//
// An epilogue E is an object with two calls, both given the finished value of C = A·B at row i
// and column j (indices into the C of gemm_block's caller) and returning what is stored there:
//   Vec operator()(Vec v, int64_t i, int64_t j) const    columns j … j+W−1 of row i, all inside C
//   float operator()(float v, int64_t i, int64_t j) const one element, for the partial edge tiles
// Identity stores C as is (and costs nothing: its tiles take the plain store).
#if !defined(__AVX2__) || !defined(__FMA__)
#error "kforge/fused_gemm.h needs AVX2 and FMA: compile with -march=native on a CPU that has them"
#endif

#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <type_traits>

namespace kforge::gemm {
// Named after the target, as in simd_math.h: an AVX-512 and an AVX2 build never share one copy
// of an inline function through the linker.
#if defined(__AVX512F__)
inline namespace avx512 {
#else
inline namespace avx2 {
#endif

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
inline Vec vset1(float x) { return _mm512_set1_ps(x); }
inline Vec vfmadd(Vec a, Vec b, Vec c) { return _mm512_fmadd_ps(a, b, c); }
inline Vec vadd(Vec a, Vec b) { return _mm512_add_ps(a, b); }
inline Vec vmul(Vec a, Vec b) { return _mm512_mul_ps(a, b); }
inline Vec vmax(Vec a, Vec b) { return _mm512_max_ps(a, b); }
inline Vec vmin(Vec a, Vec b) { return _mm512_min_ps(a, b); }
// The AVX2 function f (e.g. from simd_math.h) on both 256-bit halves of a zmm (AVX512F only).
template <class F>
inline Vec by_halves(Vec v, F f) {
  const __m256 lo = f(_mm512_castps512_ps256(v));
  const __m256 hi = f(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1)));
  return _mm512_castpd_ps(
      _mm512_insertf64x4(_mm512_castps_pd(_mm512_castps256_ps512(lo)), _mm256_castps_pd(hi), 1));
}
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
inline Vec vset1(float x) { return _mm256_set1_ps(x); }
inline Vec vfmadd(Vec a, Vec b, Vec c) { return _mm256_fmadd_ps(a, b, c); }
inline Vec vadd(Vec a, Vec b) { return _mm256_add_ps(a, b); }
inline Vec vmul(Vec a, Vec b) { return _mm256_mul_ps(a, b); }
inline Vec vmax(Vec a, Vec b) { return _mm256_max_ps(a, b); }
inline Vec vmin(Vec a, Vec b) { return _mm256_min_ps(a, b); }
// An AVX2 function is the vector function itself here.
template <class F>
inline Vec by_halves(Vec v, F f) {
  return f(v);
}
#endif
constexpr int NV = NR / W;  // vectors per tile row

// Cache blocking, from 32 KiB L1d and 512 KiB L2 per core and a 32 MiB shared L3:
//  KC = 256: the B micro-panel (KC·NR·4 = 16 KiB with the 6×16 tile) takes half of L1, leaving
//            room for the A micro-panel being streamed (KC·MR·4 = 6 KiB) and the C tile.
//  MC = 288: the A block (MC·KC·4 = 288 KiB) stays resident in L2 beside the B micro-panels
//            that pass through it, with the rest of the 512 KiB for them and for C. A larger
//            block reuses each B micro-panel, which comes from L3, over more rows.
//  NC = 4096: the packed B panel (KC·NC·4 = 4 MiB per thread) sits in the shared L3.
constexpr int64_t KC = 256;
constexpr int64_t MC = 288 / MR * MR;
constexpr int64_t NC = 4096 / NR * NR;
static_assert(MC >= MR && NC >= NR);

constexpr int64_t cdiv(int64_t x, int64_t m) { return (x + m - 1) / m; }
constexpr int64_t round_up(int64_t x, int64_t m) { return cdiv(x, m) * m; }

// Stores C = A·B as it is.
struct Identity {
  Vec operator()(Vec v, int64_t /*i*/, int64_t /*j*/) const { return v; }
  float operator()(float v, int64_t /*i*/, int64_t /*j*/) const { return v; }
};
template <class E>
constexpr bool is_identity = std::is_same_v<E, Identity>;

// The floats gemm_block needs for its packed A block and B panel (each a multiple of 16, so that
// both stay 64-byte aligned when laid out one after the other): an A block of up to m rows, a B
// panel of up to n columns, for a GEMM with K = k.
constexpr int64_t a_block_floats(int64_t m, int64_t k) {
  return round_up(std::min(MC, round_up(m, MR)) * std::min(KC, k), 16);
}
constexpr int64_t b_panel_floats(int64_t n, int64_t k) {
  return round_up(std::min(KC, k) * std::min(NC, round_up(n, NR)), 16);
}

// Packing buffers, 64-byte aligned, allocated once and regrown only if a call needs more. Not
// for two callers at once: one gemm call hands out slices of it to its threads.
inline float* scratch(int64_t floats) {
  static float* pool = nullptr;
  static int64_t capacity = 0;
  if (floats > capacity) {
    std::free(pool);
    pool = static_cast<float*>(std::aligned_alloc(64, sizeof(float) * round_up(floats, 16)));
    capacity = floats;
  }
  return pool;
}

// A[0:mc, 0:kc] (row stride LDA) → MR-row micro-panels, each stored k-major: dst[k·MR + i].
// Full panels are transposed four k at a time: 4×4 blocks of rows, then a pair and a single row
// for the rest of MR; the partial panel at the M edge is copied element by element, zero-filled.
template <int64_t LDA>
void pack_a(const float* a, int64_t mc, int64_t kc, float* dst) {
  for (int64_t i0 = 0; i0 < mc; i0 += MR, dst += kc * MR) {
    const float* src = a + i0 * LDA;
    const int64_t rows = std::min<int64_t>(MR, mc - i0);
    int64_t k = 0;
    if (rows == MR) {
      for (; k + 4 <= kc; k += 4) {
        float* d = dst + k * MR;
        int i = 0;
        for (; i + 4 <= MR; i += 4) {
          __m128 r0 = _mm_loadu_ps(src + (i + 0) * LDA + k);
          __m128 r1 = _mm_loadu_ps(src + (i + 1) * LDA + k);
          __m128 r2 = _mm_loadu_ps(src + (i + 2) * LDA + k);
          __m128 r3 = _mm_loadu_ps(src + (i + 3) * LDA + k);
          _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
          _mm_storeu_ps(d + 0 * MR + i, r0);
          _mm_storeu_ps(d + 1 * MR + i, r1);
          _mm_storeu_ps(d + 2 * MR + i, r2);
          _mm_storeu_ps(d + 3 * MR + i, r3);
        }
        if constexpr (MR % 4 >= 2) {
          const __m128 r0 = _mm_loadu_ps(src + i * LDA + k);
          const __m128 r1 = _mm_loadu_ps(src + (i + 1) * LDA + k);
          // (k0 k0 k1 k1), (k2 k2 k3 k3)
          const __m128 lo = _mm_unpacklo_ps(r0, r1), hi = _mm_unpackhi_ps(r0, r1);
          _mm_storel_pi(reinterpret_cast<__m64*>(d + 0 * MR + i), lo);
          _mm_storeh_pi(reinterpret_cast<__m64*>(d + 1 * MR + i), lo);
          _mm_storel_pi(reinterpret_cast<__m64*>(d + 2 * MR + i), hi);
          _mm_storeh_pi(reinterpret_cast<__m64*>(d + 3 * MR + i), hi);
          i += 2;
        }
        if constexpr (MR % 2 == 1)
          for (int64_t kk = 0; kk < 4; ++kk) d[kk * MR + i] = src[i * LDA + k + kk];
      }
    }
    for (; k < kc; ++k)
      for (int64_t i = 0; i < MR; ++i) dst[k * MR + i] = i < rows ? src[i * LDA + k] : 0.0f;
  }
}

// B[0:kc, 0:nc] (row stride LDB) → NR-column micro-panels, each stored row by row: dst[k·NR + j].
// Eight rows of B at a time across the whole width: the reads stream along the rows while the
// writes stay within a few lines of each panel. The partial panel at the N edge is zero-filled.
template <int64_t LDB>
void pack_b(const float* b, int64_t nc, int64_t kc, float* dst) {
  constexpr int64_t rows = 8;
  const int64_t full = nc / NR * NR;
  for (int64_t k0 = 0; k0 < kc; k0 += rows) {
    const int64_t k1 = std::min(kc, k0 + rows);
    for (int64_t j = 0; j < full; j += NR)
      for (int64_t k = k0; k < k1; ++k)
        for (int v = 0; v < NV; ++v)
          vstore(dst + j * kc + k * NR + v * W, vloadu(b + k * LDB + j + v * W));
    if (full < nc)
      for (int64_t k = k0; k < k1; ++k)
        for (int64_t j = 0; j < NR; ++j)
          dst[full * kc + k * NR + j] = full + j < nc ? b[k * LDB + full + j] : 0.0f;
  }
}

// C[0:mr, 0:nr] (row stride LDC) = or += the product of one A and one B micro-panel; on the last
// K block the epilogue maps each value before its store (the tile's corner is C[i0, j0]).
template <int64_t LDC, bool accumulate, bool last, class E>
void micro_kernel(int64_t kc, const float* __restrict ap, const float* __restrict bp, float* c,
                  int64_t mr, int64_t nr, int64_t i0, int64_t j0, const E& epilogue) {
  // The C tile is touched only after the k loop; fetching its lines now hides the L3/DRAM latency.
  for (int64_t i = 0; i < mr; ++i) {
    for (int64_t j = 0; j < nr; j += 16)
      _mm_prefetch(reinterpret_cast<const char*>(c + i * LDC + j), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(c + i * LDC + nr - 1), _MM_HINT_T0);
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
#pragma GCC unroll 32
    for (int i = 0; i < MR; ++i)
#pragma GCC unroll 32
      for (int v = 0; v < NV; ++v) {
        float* p = c + i * LDC + v * W;
        Vec r = accumulate ? vadd(vloadu(p), acc[i][v]) : acc[i][v];
        if constexpr (last) r = epilogue(r, i0 + i, j0 + v * W);
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
      const float r = accumulate ? c[i * LDC + j] + tile[i][j] : tile[i][j];
      c[i * LDC + j] = last ? epilogue(r, i0 + i, j0 + j) : r;
    }
}

// C[0:mc, 0:nc] (row stride LDC) = or += packed A block · packed B panel; C[0, 0] is C[i0, j0].
template <int64_t LDC, bool accumulate, bool last, class E>
void macro_kernel(int64_t mc, int64_t nc, int64_t kc, const float* ap, const float* bp, float* c,
                  int64_t i0, int64_t j0, const E& epilogue) {
  for (int64_t j = 0; j < nc; j += NR)
    for (int64_t i = 0; i < mc; i += MR)
      micro_kernel<LDC, accumulate, last>(kc, ap + i * kc, bp + j * kc, c + i * LDC + j,
                                          std::min<int64_t>(MR, mc - i),
                                          std::min<int64_t>(NR, nc - j), i0 + i, j0 + j, epilogue);
}

// One thread's share: C[m0:m1, n0:n1] = epilogue(A[m0:m1, :] · B[:, n0:n1]) with A K×… (row
// stride K), B and C row stride N, packing into ap (a_block_floats) and bp (b_panel_floats).
template <int64_t K, int64_t N, class E = Identity>
void gemm_block(const float* a, const float* b, float* c, int64_t m0, int64_t m1, int64_t n0,
                int64_t n1, float* ap, float* bp, const E& epilogue = {}) {
  for (int64_t jc = n0; jc < n1; jc += NC) {
    const int64_t nc = std::min(NC, n1 - jc);
    for (int64_t pc = 0; pc < K; pc += KC) {
      const int64_t kc = std::min(KC, K - pc);
      pack_b<N>(b + pc * N + jc, nc, kc, bp);
      const bool first = pc == 0, last = !is_identity<E> && pc + kc == K;
      for (int64_t ic = m0; ic < m1; ic += MC) {
        const int64_t mc = std::min(MC, m1 - ic);
        pack_a<K>(a + ic * K + pc, mc, kc, ap);
        float* cb = c + ic * N + jc;
        if (first && last)
          macro_kernel<N, false, true>(mc, nc, kc, ap, bp, cb, ic, jc, epilogue);
        else if (first)
          macro_kernel<N, false, false>(mc, nc, kc, ap, bp, cb, ic, jc, epilogue);
        else if (last)
          macro_kernel<N, true, true>(mc, nc, kc, ap, bp, cb, ic, jc, epilogue);
        else
          macro_kernel<N, true, false>(mc, nc, kc, ap, bp, cb, ic, jc, epilogue);
      }
    }
  }
}

// The thread grid tm×tn for an M×N C: as many threads as can each get at least one tile, and
// among those grids the one that packs the least. A thread packs its share of A once per NC
// columns and its share of B once, K·(M/tm·⌈(N/tn)/NC⌉ + N/tn) floats.
struct Grid {
  int64_t tm, tn;
};

inline Grid thread_grid(int64_t threads, int64_t m, int64_t n) {
  const int64_t tiles_m = cdiv(m, MR), tiles_n = cdiv(n, NR);
  Grid best{1, 1};
  double best_cost = 0;
  for (int64_t tm = 1; tm <= std::min(threads, tiles_m); ++tm) {
    const int64_t tn = std::min(threads / tm, tiles_n);
    const int64_t rows = cdiv(tiles_m, tm) * MR, cols = cdiv(tiles_n, tn) * NR;
    const double cost = double(rows) * double(cdiv(cols, NC)) + double(cols);
    const bool more_threads = tm * tn > best.tm * best.tn;
    if (more_threads || (tm * tn == best.tm * best.tn && cost < best_cost))
      best = {tm, tn}, best_cost = cost;
  }
  return best;
}

// C = epilogue(A·B) for A M×K, B K×N, C M×N (row-major, dense), on the OpenMP threads.
template <int64_t M, int64_t K, int64_t N, class E = Identity>
void gemm(const float* a, const float* b, float* c, const E& epilogue = {}) {
  constexpr int64_t tiles_m = cdiv(M, MR), tiles_n = cdiv(N, NR);
  // Waking a thread costs microseconds (far more on a busy machine), so each one must get at
  // least ~4 MFLOP (about 50 µs of work); a small GEMM runs on one.
  constexpr int64_t min_flops_per_thread = int64_t(1) << 22;
  const int64_t threads =
      std::clamp<int64_t>(2 * M * N * K / min_flops_per_thread, 1, omp_get_max_threads());
  const Grid grid = thread_grid(threads, M, N);
  // Per block: an A block, then a B panel as wide as its share of columns allows.
  constexpr int64_t a_floats = a_block_floats(M, K);
  const int64_t b_floats = b_panel_floats(cdiv(tiles_n, grid.tn) * NR, K);
  float* const pool = scratch((a_floats + b_floats) * grid.tm * grid.tn);

  // One block of the grid per thread (a smaller team than asked for would just take several).
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int64_t t = 0; t < grid.tm * grid.tn; ++t) {
    const int64_t ti = t / grid.tn, tj = t % grid.tn;
    // Balanced cuts on tile boundaries; the last row and column of tiles may be partial.
    const int64_t m0 = std::min(M, ti * tiles_m / grid.tm * MR);
    const int64_t m1 = std::min(M, (ti + 1) * tiles_m / grid.tm * MR);
    const int64_t n0 = std::min(N, tj * tiles_n / grid.tn * NR);
    const int64_t n1 = std::min(N, (tj + 1) * tiles_n / grid.tn * NR);
    float* const ap = pool + t * (a_floats + b_floats);
    gemm_block<K, N>(a, b, c, m0, m1, n0, n1, ap, ap + a_floats, epilogue);
  }
}

}  // namespace avx512 or avx2
}  // namespace kforge::gemm
