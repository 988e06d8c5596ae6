// Multi-head latent attention, expert version: the six projections are oneDNN matmuls (strided
// views instead of slices and copies), RoPE is applied in place from a table computed once, and
// the causal attention is hand-written in the flash-attention style (keys transposed once per
// head, online softmax over key blocks up to the diagonal, AVX2/FMA micro-kernels, OpenMP over
// batch×heads), writing its output straight into the layout the output projection reads.
#include <dnnl.hpp>
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

using namespace task;

constexpr std::int64_t M = B * S;          // tokens
constexpr std::int64_t DQK = NOPE + ROPE;  // query/key head dim
constexpr std::int64_t HALF = ROPE / 2;
constexpr std::int64_t QW = H * DQK;       // row widths of the projected query, keys and values
constexpr std::int64_t KNW = H * NOPE;
constexpr std::int64_t VW = H * VD;
constexpr std::int64_t KVW = KVL + ROPE;

constexpr std::int64_t MR = 6;   // query rows per micro-tile
constexpr std::int64_t NR = 16;  // keys (scores) or value columns (output) per micro-tile: two ymm
constexpr std::int64_t BQ = 48;  // query rows per block, a multiple of MR
constexpr std::int64_t BK = 64;  // keys per block, a multiple of NR
constexpr std::int64_t NKB = (S + BK - 1) / BK;
static_assert(DQK % NR == 0 && VD % NR == 0, "the micro-kernels tile the head dims by 16");

// C[rows][cols] (row stride ldc) = A[rows][inner] (row stride lda) · W[inner][cols] (dense).
class Gemm {
 public:
  Gemm(const dnnl::engine& eng, std::int64_t rows, std::int64_t inner, std::int64_t cols, std::int64_t lda, std::int64_t ldc)
      : a_({rows, inner}, dnnl::memory::data_type::f32, {lda, 1}),
        w_({inner, cols}, dnnl::memory::data_type::f32, {cols, 1}),
        c_({rows, cols}, dnnl::memory::data_type::f32, {ldc, 1}),
        prim_(dnnl::matmul::primitive_desc(dnnl::matmul::desc(a_, w_, c_), eng)) {}

  void run(const dnnl::engine& eng, dnnl::stream& strm, const float* a, const float* w, float* c) const {
    prim_.execute(strm, {{DNNL_ARG_SRC, dnnl::memory(a_, eng, const_cast<float*>(a))},
                         {DNNL_ARG_WEIGHTS, dnnl::memory(w_, eng, const_cast<float*>(w))},
                         {DNNL_ARG_DST, dnnl::memory(c_, eng, c)}});
  }

 private:
  dnnl::memory::desc a_, w_, c_;
  dnnl::matmul prim_;
};

// Everything that depends only on the shapes: the oneDNN primitives and the RoPE table.
struct Plan {
  dnnl::engine eng{dnnl::engine::kind::cpu, 0};
  Gemm q_down{eng, M, E, QL, E, QL};
  Gemm q_up{eng, M, QL, QW, QL, QW};
  Gemm kv_down{eng, M, E, KVW, E, KVW};
  Gemm k_up{eng, M, KVL, KNW, KVW, KNW};  // reads the latent part of kv in place
  Gemm v_up{eng, M, KVL, VW, KVW, VW};
  Gemm o_proj{eng, M, VW, E, VW, E};
  std::vector<float> cos = std::vector<float>(S * HALF);
  std::vector<float> sin = std::vector<float>(S * HALF);

  Plan() {
    for (std::int64_t pos = 0; pos < S; ++pos)
      for (std::int64_t i = 0; i < HALF; ++i) {
        const double angle = static_cast<double>(pos) * std::pow(static_cast<double>(rope_theta), -2.0 * i / ROPE);
        cos[pos * HALF + i] = static_cast<float>(std::cos(angle));
        sin[pos * HALF + i] = static_cast<float>(std::sin(angle));
      }
  }
};

// Rotates the halves of x[ROPE] in place by the angles of one position.
inline void rope(float* x, const float* c, const float* s) {
  for (std::int64_t i = 0; i < HALF; i += 8) {
    const __m256 x1 = _mm256_loadu_ps(x + i), x2 = _mm256_loadu_ps(x + HALF + i);
    const __m256 cv = _mm256_loadu_ps(c + i), sv = _mm256_loadu_ps(s + i);
    _mm256_storeu_ps(x + i, _mm256_fmsub_ps(x1, cv, _mm256_mul_ps(x2, sv)));
    _mm256_storeu_ps(x + HALF + i, _mm256_fmadd_ps(x2, cv, _mm256_mul_ps(x1, sv)));
  }
}
static_assert(HALF % 8 == 0, "RoPE rotates eight pairs at a time");

// s[MR][NR] (row stride BK) = q[MR][DQK] (row stride DQK) · kt[DQK][NR] (row stride BK).
inline void qk_tile(const float* q, const float* kt, float* s) {
  __m256 acc[MR][2];
#pragma GCC unroll 6
  for (int r = 0; r < MR; ++r) acc[r][0] = acc[r][1] = _mm256_setzero_ps();
  for (std::int64_t d = 0; d < DQK; ++d) {
    const __m256 k0 = _mm256_loadu_ps(kt + d * BK);
    const __m256 k1 = _mm256_loadu_ps(kt + d * BK + 8);
#pragma GCC unroll 6
    for (int r = 0; r < MR; ++r) {
      const __m256 qb = _mm256_broadcast_ss(q + r * DQK + d);
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

// acc[MR][NR] (row stride VD) += p[MR][nk] (row stride BK) · v[nk][NR] (row stride VD).
inline void pv_tile(const float* p, const float* v, float* acc, std::int64_t nk) {
  __m256 a[MR][2];
#pragma GCC unroll 6
  for (int r = 0; r < MR; ++r) {
    a[r][0] = _mm256_loadu_ps(acc + r * VD);
    a[r][1] = _mm256_loadu_ps(acc + r * VD + 8);
  }
  for (std::int64_t j = 0; j < nk; ++j) {
    const __m256 v0 = _mm256_loadu_ps(v + j * VD);
    const __m256 v1 = _mm256_loadu_ps(v + j * VD + 8);
#pragma GCC unroll 6
    for (int r = 0; r < MR; ++r) {
      const __m256 pb = _mm256_broadcast_ss(p + r * BK + j);
      a[r][0] = _mm256_fmadd_ps(pb, v0, a[r][0]);
      a[r][1] = _mm256_fmadd_ps(pb, v1, a[r][1]);
    }
  }
#pragma GCC unroll 6
  for (int r = 0; r < MR; ++r) {
    _mm256_storeu_ps(acc + r * VD, a[r][0]);
    _mm256_storeu_ps(acc + r * VD + 8, a[r][1]);
  }
}

// Per-thread scratch: the head's keys transposed per block ([NKB][DQK][BK], zero past S) and its
// values made contiguous ([S][VD]: rows H·VD floats apart would all fall into the same few L1
// sets), one block of scaled queries, its scores and its running output, row maxima and row sums.
struct Scratch {
  std::vector<float> kt = std::vector<float>(NKB * DQK * BK);
  std::vector<float> v = std::vector<float>(S * VD);
  std::vector<float> q = std::vector<float>(BQ * DQK);
  std::vector<float> s = std::vector<float>(BQ * BK);
  std::vector<float> acc = std::vector<float>(BQ * VD);
  std::vector<float> m = std::vector<float>(BQ);
  std::vector<float> l = std::vector<float>(BQ);
};

// The keys of one head, [k_nope | k_rope] per position, transposed per block.
void transpose_keys(const float* k_nope, const float* k_rope, float* kt) {
  for (std::int64_t kb = 0; kb < NKB; ++kb)
    for (std::int64_t j = 0; j < BK; ++j) {
      const std::int64_t key = kb * BK + j;
      float* dst = kt + kb * DQK * BK + j;
      for (std::int64_t d = 0; d < NOPE; ++d) dst[d * BK] = key < S ? k_nope[key * KNW + d] : 0.0f;
      for (std::int64_t d = 0; d < ROPE; ++d) dst[(NOPE + d) * BK] = key < S ? k_rope[key * ROPE + d] : 0.0f;
    }
}

// Query rows [i0, i0 + rows) of one head (q at the head's row 0, stride QW) against keys
// [0, i0 + rows) (w.kt, w.v); o at the head's row 0, stride VW.
void query_block(const float* q, float* o, std::int64_t i0, std::int64_t rows, Scratch& w) {
  const std::int64_t rows_pad = (rows + MR - 1) / MR * MR;
  // Scores come out in log2 units: exp(x·scale) = 2^(x·scale·log2 e), folded into q once.
  const float qscale = static_cast<float>(M_LOG2E / std::sqrt(static_cast<double>(DQK)));
  for (std::int64_t r = 0; r < rows_pad; ++r)
    for (std::int64_t d = 0; d < DQK; ++d) w.q[r * DQK + d] = r < rows ? q[(i0 + r) * QW + d] * qscale : 0.0f;
  std::fill(w.acc.begin(), w.acc.begin() + rows_pad * VD, 0.0f);
  std::fill(w.m.begin(), w.m.end(), -INFINITY);
  std::fill(w.l.begin(), w.l.end(), 0.0f);

  const std::int64_t last_key = i0 + rows - 1;
  for (std::int64_t j0 = 0; j0 <= last_key; j0 += BK) {
    const std::int64_t nk = std::min(BK, last_key + 1 - j0);  // keys any row of the block may see
    const std::int64_t ncols = (nk + NR - 1) / NR * NR;
    const float* kt = w.kt.data() + (j0 / BK) * DQK * BK;
    for (std::int64_t r = 0; r < rows_pad; r += MR)
      for (std::int64_t c = 0; c < ncols; c += NR) qk_tile(w.q.data() + r * DQK, kt + c, w.s.data() + r * BK + c);

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
        for (std::int64_t d = 0; d < VD; d += 8)
          _mm256_storeu_ps(w.acc.data() + r * VD + d, _mm256_mul_ps(ab, _mm256_loadu_ps(w.acc.data() + r * VD + d)));
        w.m[r] = m_new;
      }
      w.l[r] += hsum(sum);
    }
    // Masked and padding entries are exactly 0, so all rows share the key count nk.
    for (std::int64_t r = 0; r < rows_pad; r += MR)
      for (std::int64_t c = 0; c < VD; c += NR)
        pv_tile(w.s.data() + r * BK, w.v.data() + j0 * VD + c, w.acc.data() + r * VD + c, nk);
  }
  for (std::int64_t r = 0; r < rows; ++r) {
    const float inv = 1.0f / w.l[r];
    for (std::int64_t d = 0; d < VD; ++d) o[(i0 + r) * VW + d] = w.acc[r * VD + d] * inv;
  }
}

}  // namespace

extern "C" void kernel(const float* x, const float* q_down, const float* q_up, const float* kv_down, const float* k_up,
                       const float* v_up, const float* o_proj, float* out) {
  static const Plan plan;
  dnnl::stream strm(plan.eng);
  std::vector<float> cq(M * QL), q(M * QW), kv(M * KVW), k_nope(M * KNW), k_rope(M * ROPE), v(M * VW), attn(M * VW);

  plan.q_down.run(plan.eng, strm, x, q_down, cq.data());
  plan.q_up.run(plan.eng, strm, cq.data(), q_up, q.data());
  plan.kv_down.run(plan.eng, strm, x, kv_down, kv.data());
  plan.k_up.run(plan.eng, strm, kv.data(), k_up, k_nope.data());
  plan.v_up.run(plan.eng, strm, kv.data(), v_up, v.data());
  strm.wait();

#pragma omp parallel
  {
#pragma omp for schedule(static)
    for (std::int64_t t = 0; t < M; ++t) {
      const float* c = plan.cos.data() + t % S * HALF;
      const float* s = plan.sin.data() + t % S * HALF;
      for (std::int64_t h = 0; h < H; ++h) rope(q.data() + t * QW + h * DQK + NOPE, c, s);
      std::copy_n(kv.data() + t * KVW + KVL, ROPE, k_rope.data() + t * ROPE);
      rope(k_rope.data() + t * ROPE, c, s);
    }

    Scratch w;
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t bh = 0; bh < B * H; ++bh) {
      const std::int64_t b = bh / H, h = bh % H;
      transpose_keys(k_nope.data() + b * S * KNW + h * NOPE, k_rope.data() + b * S * ROPE, w.kt.data());
      for (std::int64_t j = 0; j < S; ++j) std::copy_n(v.data() + (b * S + j) * VW + h * VD, VD, w.v.data() + j * VD);
      for (std::int64_t i0 = 0; i0 < S; i0 += BQ)
        query_block(q.data() + b * S * QW + h * DQK, attn.data() + b * S * VW + h * VD, i0, std::min(BQ, S - i0), w);
    }
  }

  plan.o_proj.run(plan.eng, strm, attn.data(), o_proj, out);
  strm.wait();
}
