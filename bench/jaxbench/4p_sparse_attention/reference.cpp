// Causal GQA attention reference: per query row, the scores of the visible keys 0..i, their
// softmax and the weighted sum of v, all in double. Masked keys (score -1e30) would get a weight of
// exactly 0 after the max subtraction, so they are skipped. (batch, head) pairs run in parallel;
// every sum is serial, so the result does not depend on the thread count.
#include <algorithm>
#include <cmath>
#include <vector>

#include "kforge/guard_probe.h"
#include "kforge_task.h"

extern "C" void kernel(const float* q, const float* k, const float* v, float* out) {
  using namespace task;
  constexpr std::int64_t group = Hq / Hkv;  // query heads per kv head (jnp.repeat: h -> h / group)
#pragma omp parallel for collapse(2) schedule(dynamic)
  for (std::int64_t b = 0; b < B; ++b)
    for (std::int64_t h = 0; h < Hq; ++h) {
      const float* qh = q + (b * Hq + h) * S * D;
      const float* kh = k + (b * Hkv + h / group) * S * D;
      const float* vh = v + (b * Hkv + h / group) * S * D;
      std::vector<double> p(S), acc(D);
      for (std::int64_t i = 0; i < S; ++i) {
        const std::int64_t keys = KFORGE_GUARD("causal_mask", i + 1 < S) ? i + 1 : S;
        double m = -INFINITY;
        for (std::int64_t j = 0; j < keys; ++j) {
          double s = 0;
          for (std::int64_t d = 0; d < D; ++d) s += static_cast<double>(qh[i * D + d]) * kh[j * D + d];
          p[j] = s;
          m = std::max(m, s);  // not a guard: the softmax's shift by its max cancels
        }
        double sum = 0;
        std::fill(acc.begin(), acc.end(), 0.0);
        for (std::int64_t j = 0; j < keys; ++j) {
          const double w = std::exp(p[j] - m);
          sum += w;
          for (std::int64_t d = 0; d < D; ++d) acc[d] += w * vh[j * D + d];
        }
        for (std::int64_t d = 0; d < D; ++d) out[((b * Hq + h) * S + i) * D + d] = static_cast<float>(acc[d] / sum);
      }
    }
}
