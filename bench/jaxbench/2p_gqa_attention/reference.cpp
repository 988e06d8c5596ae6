// Causal grouped-query attention reference: per (batch, query head, query row), the scores against
// the head's KV head, the softmax and the weighted sum of values in double. Rows run in parallel;
// every sum is serial, so the result does not depend on the thread count.
#include <cmath>
#include <vector>

#include "kforge/guard_probe.h"
#include "kforge_task.h"

extern "C" void kernel(const float* query, const float* key, const float* value, float* out) {
  using namespace task;
  const std::int64_t G = Hq / Hkv;  // query heads per KV head
  const double scale = 1.0 / std::sqrt(static_cast<double>(D));
#pragma omp parallel for collapse(3) schedule(dynamic)
  for (std::int64_t b = 0; b < B; ++b) {
    for (std::int64_t h = 0; h < Hq; ++h) {
      for (std::int64_t i = 0; i < S; ++i) {
        const std::int64_t g = h / G;
        const float* qi = query + ((b * S + i) * Hq + h) * D;
        auto k_row = [&](std::int64_t j) { return key + ((b * S + j) * Hkv + g) * D; };
        auto v_row = [&](std::int64_t j) { return value + ((b * S + j) * Hkv + g) * D; };
        // Keys past i would get mask_value (-1e9): exp(-1e9 - max) is exactly 0 in double, and
        // the diagonal is never masked, so summing over the first i + 1 keys only is the same softmax.
        const std::int64_t keys = KFORGE_GUARD("causal_mask", i + 1 < S) ? i + 1 : S;
        std::vector<double> p(keys);
        double mx = -INFINITY;
        for (std::int64_t j = 0; j < keys; ++j) {
          const float* kj = k_row(j);
          double s = 0;
          for (std::int64_t d = 0; d < D; ++d) s += static_cast<double>(qi[d]) * kj[d];
          p[j] = s * scale;
          mx = std::max(mx, p[j]);  // not a guard: the softmax's shift by its max cancels
        }
        double sum = 0;
        for (std::int64_t j = 0; j < keys; ++j) sum += (p[j] = std::exp(p[j] - mx));
        std::vector<double> acc(D, 0.0);
        for (std::int64_t j = 0; j < keys; ++j) {
          const float* vj = v_row(j);
          for (std::int64_t d = 0; d < D; ++d) acc[d] += p[j] * vj[d];
        }
        float* oi = out + ((b * S + i) * Hq + h) * D;
        for (std::int64_t d = 0; d < D; ++d) oi[d] = static_cast<float>(acc[d] / sum);
      }
    }
  }
}
