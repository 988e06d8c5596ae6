// Multi-scale retention reference: per (batch, head, query row) over the causal prefix, scores,
// decay, the row normaliser and the weighted sum of values, all in double. Rows in parallel; each
// element's sum is serial, so the result does not depend on the thread count.
#include <algorithm>
#include <cmath>
#include <vector>

#include "kforge/guard_probe.h"
#include "kforge_task.h"

extern "C" void kernel(const float* query, const float* key, const float* value, float* output) {
  using namespace task;
#pragma omp parallel for collapse(2) schedule(dynamic)
  for (std::int64_t bh = 0; bh < B * H; ++bh) {
    for (std::int64_t i = 0; i < S; ++i) {
      const std::int64_t h = bh % H;
      const double log_gamma = std::log(1.0 - std::exp2(-5.0 - static_cast<double>(h)));
      const float* q = query + (bh * S + i) * D;
      const float* k = key + bh * S * D;
      const float* v = value + bh * S * D;
      // scores[j] = (q_i · k_j) · γ^(i−j) for j ≤ i; later keys are masked to zero.
      const std::int64_t keys = KFORGE_GUARD("causal_mask", i + 1 < S) ? i + 1 : S;
      std::vector<double> scores(keys);
      double abs_sum = 0;
      for (std::int64_t j = 0; j < keys; ++j) {
        double dot = 0;
        for (std::int64_t d = 0; d < D; ++d) dot += static_cast<double>(q[d]) * k[j * D + d];
        scores[j] = dot * std::exp(log_gamma * static_cast<double>(i - j));
        abs_sum += std::fabs(scores[j]);
      }
      const double norm = KFORGE_GUARD("norm_floor", abs_sum < 1.0) ? 1.0 : abs_sum;  // max(Σ|scores|, 1)
      std::vector<double> acc(D, 0.0);
      for (std::int64_t j = 0; j < keys; ++j) {
        const double w = scores[j] / norm;
        for (std::int64_t d = 0; d < D; ++d) acc[d] += w * v[j * D + d];
      }
      for (std::int64_t d = 0; d < D; ++d) output[(bh * S + i) * D + d] = static_cast<float>(acc[d]);
    }
  }
}
