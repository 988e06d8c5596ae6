// Sparse MoE reference: per token, router logits in double, top-TOPK selection with ties going to
// the lower expert index (lax.top_k's rule), softmax over the selected logits, and the weighted
// sum of the selected experts' SwiGLU MLPs, all accumulated in double. Unselected experts have
// weight zero in the original's dense combination, so they are skipped here. Tokens run in
// parallel; each sum is serial, so the result does not depend on the thread count.
#include <algorithm>
#include <cmath>
#include <vector>

#include "kforge/guard_probe.h"
#include "kforge_task.h"

extern "C" void kernel(const float* x, const float* router_weights, const float* expert_gate_kernels,
                       const float* expert_up_kernels, const float* expert_down_kernels, float* out) {
  using namespace task;
#pragma omp parallel for schedule(dynamic)
  for (std::int64_t t = 0; t < B * S; ++t) {
    const float* xt = x + t * E;
    std::vector<double> logits(NE, 0.0);
    for (std::int64_t e = 0; e < E; ++e)
      for (std::int64_t n = 0; n < NE; ++n) logits[n] += static_cast<double>(xt[e]) * router_weights[e * NE + n];

    // Top-TOPK in descending order; a strict '>' keeps the lower index on ties.
    std::vector<bool> taken(NE, false);
    std::vector<std::int64_t> chosen(TOPK);
    for (std::int64_t k = 0; k < TOPK; ++k) {
      std::int64_t best = -1;
      for (std::int64_t n = 0; n < NE; ++n)
        // not a guard: the top-k search (counted below)
        if (!taken[n] && (best < 0 || logits[n] > logits[best])) best = n;
      taken[best] = true;
      chosen[k] = best;
    }
    for (std::int64_t n = 0; n < NE; ++n) KFORGE_GUARD_NOTE("expert_routed", taken[n]);
    std::vector<double> prob(TOPK);
    double denom = 0;
    for (std::int64_t k = 0; k < TOPK; ++k) denom += prob[k] = std::exp(logits[chosen[k]] - logits[chosen[0]]);
    for (std::int64_t k = 0; k < TOPK; ++k) prob[k] /= denom;

    std::vector<double> acc(E, 0.0), gate(M), up(M);
    for (std::int64_t k = 0; k < TOPK; ++k) {
      const std::int64_t n = chosen[k];
      const float* gk = expert_gate_kernels + n * E * M;
      const float* uk = expert_up_kernels + n * E * M;
      const float* dk = expert_down_kernels + n * M * E;
      std::fill(gate.begin(), gate.end(), 0.0);
      std::fill(up.begin(), up.end(), 0.0);
      for (std::int64_t e = 0; e < E; ++e) {
        const double xe = xt[e];
        for (std::int64_t m = 0; m < M; ++m) {
          gate[m] += xe * gk[e * M + m];
          up[m] += xe * uk[e * M + m];
        }
      }
      for (std::int64_t m = 0; m < M; ++m) {
        const double hidden = prob[k] * gate[m] / (1.0 + std::exp(-gate[m])) * up[m];  // p·silu(g)·u
        for (std::int64_t e = 0; e < E; ++e) acc[e] += hidden * dk[m * E + e];
      }
    }
    for (std::int64_t e = 0; e < E; ++e) out[t * E + e] = static_cast<float>(acc[e]);
  }
}
