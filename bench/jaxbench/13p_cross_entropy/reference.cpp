// Cross-entropy reference: per token, the logits, their log-sum-exp (shifted by the maximum) and
// the loss at the label, all in double (tokens in parallel; each sum is serial, so the result does
// not depend on the thread count).
#include <algorithm>
#include <cmath>
#include <vector>

#include "kforge_task.h"

extern "C" void kernel(const float* hidden, const float* weight, const std::int32_t* labels, float* loss) {
  using namespace task;
#pragma omp parallel for schedule(static)
  for (std::int64_t t = 0; t < T; ++t) {
    std::vector<double> logits(V, 0.0);
    for (std::int64_t h = 0; h < H; ++h) {
      const double x = hidden[t * H + h];
      const float* w = weight + h * V;
      for (std::int64_t v = 0; v < V; ++v) logits[v] += x * w[v];
    }
    const double peak = *std::max_element(logits.begin(), logits.end());
    double sum = 0;
    for (std::int64_t v = 0; v < V; ++v) sum += std::exp(logits[v] - peak);
    // -log_softmax(logits)[label]
    loss[t] = static_cast<float>(peak + std::log(sum) - logits[labels[t]]);
  }
}
