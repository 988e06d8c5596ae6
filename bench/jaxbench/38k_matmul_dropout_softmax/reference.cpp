// Matmul + Softmax reference: W is transposed once so that each row of x·Wᵀ accumulates in double
// along contiguous rows (rows in parallel; each element's sum is serial, so the result does not
// depend on the thread count); the softmax in double.
#include <algorithm>
#include <cmath>
#include <vector>

#include "kforge_task.h"

extern "C" void kernel(const float* x, const float* weight, const float* bias, float* y) {
  using namespace task;
  std::vector<float> wt(K * N);  // Wᵀ, (K, N)
#pragma omp parallel for schedule(static)
  for (std::int64_t k = 0; k < K; ++k)
    for (std::int64_t j = 0; j < N; ++j) wt[k * N + j] = weight[j * K + k];
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < M; ++i) {
    std::vector<double> logit(N, 0.0);
    for (std::int64_t k = 0; k < K; ++k) {
      const double xik = x[i * K + k];
      const float* wrow = wt.data() + k * N;
      for (std::int64_t j = 0; j < N; ++j) logit[j] += xik * wrow[j];
    }
    for (std::int64_t j = 0; j < N; ++j) logit[j] += bias[j];
    // not a guard: the softmax's shift by its max cancels
    const double mx = *std::max_element(logit.begin(), logit.end());
    double sum = 0;
    for (double& v : logit) sum += (v = std::exp(v - mx));
    for (std::int64_t j = 0; j < N; ++j) y[i * N + j] = static_cast<float>(logit[j] / sum);
  }
}
