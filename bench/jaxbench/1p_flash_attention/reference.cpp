// Causal multi-head attention reference: per query row, the scores, the softmax and the weighted
// sum of values in double. Rows run in parallel; every sum is serial, so the result does not
// depend on the thread count.
#include <cmath>
#include <vector>

#include "kforge/guard_probe.h"
#include "kforge_task.h"

extern "C" void kernel(const float* q, const float* k, const float* v, float* o) {
  using namespace task;
  const double scale = 1.0 / std::sqrt(static_cast<double>(D));
#pragma omp parallel for collapse(2) schedule(dynamic)
  for (std::int64_t bh = 0; bh < B * H; ++bh) {
    for (std::int64_t i = 0; i < S; ++i) {
      const float* qh = q + bh * S * D;
      const float* kh = k + bh * S * D;
      const float* vh = v + bh * S * D;
      // Keys past i would get mask_value (-1e9): exp(-1e9 - max) is exactly 0 in double, and the
      // diagonal is never masked, so summing over the first i + 1 keys only is the same softmax.
      const std::int64_t keys = KFORGE_GUARD("causal_mask", i + 1 < S) ? i + 1 : S;
      std::vector<double> p(keys);
      double mx = -INFINITY;
      for (std::int64_t j = 0; j < keys; ++j) {
        double s = 0;
        for (std::int64_t d = 0; d < D; ++d) s += static_cast<double>(qh[i * D + d]) * kh[j * D + d];
        p[j] = s * scale;
        mx = std::max(mx, p[j]);  // not a guard: the softmax's shift by its max cancels
      }
      double sum = 0;
      for (std::int64_t j = 0; j < keys; ++j) sum += (p[j] = std::exp(p[j] - mx));
      std::vector<double> acc(D, 0.0);
      for (std::int64_t j = 0; j < keys; ++j)
        for (std::int64_t d = 0; d < D; ++d) acc[d] += p[j] * vh[j * D + d];
      for (std::int64_t d = 0; d < D; ++d) o[bh * S * D + i * D + d] = static_cast<float>(acc[d] / sum);
    }
  }
}
