// Matmul + GELU + Softmax reference: each row of x·W accumulated in double (rows in parallel; each
// element's sum is serial, so the result does not depend on the thread count), the tanh GELU and
// the softmax in double.
#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "kforge_task.h"

extern "C" void kernel(const float* x, const float* weight, const float* bias, float* y) {
  using namespace task;
  const double c = std::sqrt(2.0 / std::numbers::pi);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < M; ++i) {
    std::vector<double> h(N, 0.0);
    for (std::int64_t k = 0; k < K; ++k) {
      const double xik = x[i * K + k];
      const float* wrow = weight + k * N;
      for (std::int64_t j = 0; j < N; ++j) h[j] += xik * wrow[j];
    }
    for (std::int64_t j = 0; j < N; ++j) {
      const double v = h[j] + bias[j];
      h[j] = 0.5 * v * (1.0 + std::tanh(c * (v + 0.044715 * v * v * v)));
    }
    // not a guard: the softmax's shift by its max cancels
    const double mx = *std::max_element(h.begin(), h.end());
    double sum = 0;
    for (double& v : h) sum += (v = std::exp(v - mx));
    for (std::int64_t j = 0; j < N; ++j) y[i * N + j] = static_cast<float>(h[j] / sum);
  }
}
