// Cross-entropy reference: per token, the logits, their log-sum-exp (shifted by the maximum) and
// the loss at the label, all in double. Tokens are taken in blocks that share each slice of the
// weight, so the weight is streamed T/TB times rather than T times; each logit is still one
// serial sum over H, so the result does not depend on the blocking or the thread count.
#include <algorithm>
#include <cmath>
#include <vector>

#include "kforge_task.h"

extern "C" void kernel(const float* hidden, const float* weight, const std::int32_t* labels, float* loss) {
  using namespace task;
  constexpr std::int64_t TB = 16;    // tokens per block
  constexpr std::int64_t VC = 1024;  // vocabulary entries per slice (the block's sums stay in L2)
#pragma omp parallel for schedule(dynamic)
  for (std::int64_t t0 = 0; t0 < T; t0 += TB) {
    const std::int64_t tokens = std::min(TB, T - t0);  // not a guard: the last block's size
    std::vector<double> logits(tokens * V, 0.0);
    for (std::int64_t v0 = 0; v0 < V; v0 += VC) {
      const std::int64_t vc = std::min(VC, V - v0);  // not a guard: the last slice's size
      for (std::int64_t h = 0; h < H; ++h) {
        const float* w = weight + h * V + v0;
        for (std::int64_t t = 0; t < tokens; ++t) {
          const double x = hidden[(t0 + t) * H + h];
          double* l = logits.data() + t * V + v0;
          for (std::int64_t v = 0; v < vc; ++v) l[v] += x * w[v];
        }
      }
    }
    for (std::int64_t t = 0; t < tokens; ++t) {
      const double* l = logits.data() + t * V;
      const double peak = *std::max_element(l, l + V);  // not a guard: the logsumexp's shift by its max cancels
      double sum = 0;
      for (std::int64_t v = 0; v < V; ++v) sum += std::exp(l[v] - peak);
      // -log_softmax(logits)[label]
      loss[t0 + t] = static_cast<float>(peak + std::log(sum) - l[labels[t0 + t]]);
    }
  }
}
