// Mamba-2 SSD reference: per (batch, head), the cumulative log-decay in double; per query row,
// the decayed scores over the causal prefix, their signed row sum as the normaliser, and the
// weighted sum of values, all in double. Rows in parallel; each element's sum is serial, so the
// result does not depend on the thread count.
#include <algorithm>
#include <cmath>
#include <vector>

#include "kforge/guard_probe.h"
#include "kforge_task.h"

extern "C" void kernel(const float* query, const float* key, const float* value, const float* A_log, float* output) {
  using namespace task;
#pragma omp parallel for schedule(dynamic)
  for (std::int64_t bh = 0; bh < B * H; ++bh) {
    // cumsum[s] = Σ_{t≤s} log(sigmoid(A_log[t]) + 1e-8), so L[i][j] = exp(cumsum[i] − cumsum[j]).
    std::vector<double> cumsum(S);
    double running = 0;
    for (std::int64_t s = 0; s < S; ++s) {
      const double a = 1.0 / (1.0 + std::exp(-static_cast<double>(A_log[bh * S + s])));
      running += std::log(a + 1e-8);
      cumsum[s] = running;
    }
    const float* k = key + bh * S * D;
    const float* v = value + bh * S * D;
    std::vector<double> scores(S), acc(D);
    for (std::int64_t i = 0; i < S; ++i) {
      const float* q = query + (bh * S + i) * D;
      double sum = 0;
      const std::int64_t keys = KFORGE_GUARD("causal_mask", i + 1 < S) ? i + 1 : S;
      for (std::int64_t j = 0; j < keys; ++j) {
        double dot = 0;
        for (std::int64_t d = 0; d < D; ++d) dot += static_cast<double>(q[d]) * k[j * D + d];
        scores[j] = dot * std::exp(cumsum[i] - cumsum[j]);
        sum += scores[j];
      }
      // The workload replaces |sum| < 1e-6 by 1 and then divides by max(|sum|, 1).
      // not a guard: the replacement changes nothing, both branches give a divisor of 1
      const double replaced = std::fabs(std::fabs(sum) < 1e-6 ? 1.0 : sum);
      const double norm = KFORGE_GUARD("norm_floor", replaced < 1.0) ? 1.0 : replaced;
      std::fill(acc.begin(), acc.end(), 0.0);
      for (std::int64_t j = 0; j < keys; ++j) {
        const double w = scores[j] / norm;
        for (std::int64_t d = 0; d < D; ++d) acc[d] += w * v[j * D + d];
      }
      for (std::int64_t d = 0; d < D; ++d) output[(bh * S + i) * D + d] = static_cast<float>(acc[d]);
    }
  }
}
