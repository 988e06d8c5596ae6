// Paged decode attention reference: for every sequence and query head, the scaled scores of the
// first kv_len keys (found through the page table), their softmax and the weighted sum of v, in
// double. Keys at or past kv_len (score -1e30) would get a weight of exactly 0, so they are
// skipped. (sequence, head) pairs run in parallel; every sum is serial.
#include <algorithm>
#include <cmath>
#include <vector>

#include "kforge/guard_probe.h"
#include "kforge_task.h"

extern "C" void kernel(const float* queries, const float* k_pages, const float* v_pages, const std::int32_t* kv_lens,
                       const std::int32_t* page_indices, float* out) {
  using namespace task;
  constexpr std::int64_t group = Hq / Hkv;
#pragma omp parallel for collapse(2) schedule(dynamic)
  for (std::int64_t n = 0; n < N; ++n)
    for (std::int64_t h = 0; h < Hq; ++h) {
      // Keys at or past kv_lens[n] get the score -1e30 and a weight of exactly 0: they are skipped.
      const std::int64_t len = KFORGE_GUARD("kv_len_mask", kv_lens[n] < PPS * PS) ? kv_lens[n] : PPS * PS;
      const std::int64_t kvh = h / group;
      const float* qh = queries + (n * Hq + h) * D;
      // Row t of the sequence: token t % PS of page page_indices[n][t / PS].
      auto row = [&](const float* pages, std::int64_t t) {
        return pages + ((page_indices[n * PPS + t / PS] * PS + t % PS) * Hkv + kvh) * D;
      };
      std::vector<double> p(len), acc(D, 0.0);
      double m = -INFINITY;
      for (std::int64_t t = 0; t < len; ++t) {
        const float* kt = row(k_pages, t);
        double s = 0;
        for (std::int64_t d = 0; d < D; ++d) s += static_cast<double>(qh[d]) * kt[d];
        p[t] = s * f64::sm_scale;
        m = std::max(m, p[t]);  // not a guard: the softmax's shift by its max cancels
      }
      double sum = 0;
      for (std::int64_t t = 0; t < len; ++t) {
        const double w = std::exp(p[t] - m);
        const float* vt = row(v_pages, t);
        sum += w;
        for (std::int64_t d = 0; d < D; ++d) acc[d] += w * vt[d];
      }
      for (std::int64_t d = 0; d < D; ++d) out[(n * Hq + h) * D + d] = static_cast<float>(acc[d] / sum);
    }
}
