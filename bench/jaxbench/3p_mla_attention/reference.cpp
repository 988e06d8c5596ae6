// Multi-head latent attention reference: every projection, RoPE, the causal softmax attention and
// the output projection in double, intermediates kept in double. Tokens (then query rows) run in
// parallel; every sum is serial, so the result does not depend on the thread count.
#include <cmath>
#include <vector>

#include "kforge/guard_probe.h"
#include "kforge_task.h"

namespace {

using namespace task;
constexpr std::int64_t DQK = NOPE + ROPE;  // query/key head dim
constexpr std::int64_t HALF = ROPE / 2;

// y[N] = x[K] · w[K][N], accumulated in double.
template <typename In>
void vecmat(const In* x, const float* w, std::int64_t K, std::int64_t N, double* y) {
  for (std::int64_t n = 0; n < N; ++n) y[n] = 0;
  for (std::int64_t k = 0; k < K; ++k) {
    const double xk = x[k];
    for (std::int64_t n = 0; n < N; ++n) y[n] += xk * w[k * N + n];
  }
}

// Rotates the two halves of x[ROPE] by the angles of position pos.
void rope(double* x, std::int64_t pos) {
  for (std::int64_t i = 0; i < HALF; ++i) {
    const double angle = static_cast<double>(pos) * std::pow(static_cast<double>(rope_theta), -static_cast<double>(2 * i) / ROPE);
    const double c = std::cos(angle), s = std::sin(angle), x1 = x[i], x2 = x[HALF + i];
    x[i] = x1 * c - x2 * s;
    x[HALF + i] = x2 * c + x1 * s;
  }
}

}  // namespace

extern "C" void kernel(const float* x, const float* q_down, const float* q_up, const float* kv_down, const float* k_up,
                       const float* v_up, const float* o_proj, float* out) {
  std::vector<double> q(B * S * H * DQK);       // per head: nope then rope part
  std::vector<double> k_nope(B * S * H * NOPE);
  std::vector<double> k_rope(B * S * ROPE);     // shared by all heads
  std::vector<double> v(B * S * H * VD);
  std::vector<double> attn(B * S * H * VD);     // attention output, heads side by side

#pragma omp parallel for schedule(static)
  for (std::int64_t t = 0; t < B * S; ++t) {
    const std::int64_t pos = t % S;
    std::vector<double> cq(QL), kv(KVL + ROPE);
    vecmat(x + t * E, q_down, E, QL, cq.data());
    vecmat(cq.data(), q_up, QL, H * DQK, q.data() + t * H * DQK);
    vecmat(x + t * E, kv_down, E, KVL + ROPE, kv.data());
    vecmat(kv.data(), k_up, KVL, H * NOPE, k_nope.data() + t * H * NOPE);
    vecmat(kv.data(), v_up, KVL, H * VD, v.data() + t * H * VD);
    for (std::int64_t h = 0; h < H; ++h) rope(q.data() + (t * H + h) * DQK + NOPE, pos);
    for (std::int64_t i = 0; i < ROPE; ++i) k_rope[t * ROPE + i] = kv[KVL + i];
    rope(k_rope.data() + t * ROPE, pos);
  }

  const double scale = 1.0 / std::sqrt(static_cast<double>(DQK));
#pragma omp parallel for collapse(3) schedule(dynamic)
  for (std::int64_t b = 0; b < B; ++b) {
    for (std::int64_t h = 0; h < H; ++h) {
      for (std::int64_t i = 0; i < S; ++i) {
        const double* qi = q.data() + ((b * S + i) * H + h) * DQK;
        // Keys past i would get mask_value (-1e9): exp(-1e9 - max) is exactly 0 in double, and
        // the diagonal is never masked, so summing over the first i + 1 keys only is the same softmax.
        const std::int64_t keys = KFORGE_GUARD("causal_mask", i + 1 < S) ? i + 1 : S;
        std::vector<double> p(keys);
        double mx = -INFINITY;
        for (std::int64_t j = 0; j < keys; ++j) {
          const double* kn = k_nope.data() + ((b * S + j) * H + h) * NOPE;
          const double* kr = k_rope.data() + (b * S + j) * ROPE;
          double s = 0;
          for (std::int64_t d = 0; d < NOPE; ++d) s += qi[d] * kn[d];
          for (std::int64_t d = 0; d < ROPE; ++d) s += qi[NOPE + d] * kr[d];
          p[j] = s * scale;
          mx = std::max(mx, p[j]);  // not a guard: the softmax's shift by its max cancels
        }
        double sum = 0;
        for (std::int64_t j = 0; j < keys; ++j) sum += (p[j] = std::exp(p[j] - mx));
        double* oi = attn.data() + ((b * S + i) * H + h) * VD;
        for (std::int64_t d = 0; d < VD; ++d) oi[d] = 0;
        for (std::int64_t j = 0; j < keys; ++j) {
          const double* vj = v.data() + ((b * S + j) * H + h) * VD;
          for (std::int64_t d = 0; d < VD; ++d) oi[d] += p[j] * vj[d];
        }
        for (std::int64_t d = 0; d < VD; ++d) oi[d] /= sum;
      }
    }
  }

#pragma omp parallel for schedule(static)
  for (std::int64_t t = 0; t < B * S; ++t) {
    std::vector<double> y(E);
    vecmat(attn.data() + t * H * VD, o_proj, H * VD, E, y.data());
    for (std::int64_t e = 0; e < E; ++e) out[t * E + e] = static_cast<float>(y[e]);
  }
}
