// Gemm + BatchNorm (eval) + Scaling + Softmax reference: each row of x·W accumulated in double
// (rows in parallel; each element's sum is serial, so the result does not depend on the thread
// count), the normalization and the softmax in double.
#include <algorithm>
#include <cmath>
#include <vector>

#include "kforge_task.h"

extern "C" void kernel(const float* x, const float* weight, const float* bias, const float* bn_scale,
                       const float* bn_bias, const float* bn_mean, const float* bn_var, const float* scale,
                       float* y) {
  using namespace task;
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < M; ++i) {
    std::vector<double> logit(N, 0.0);
    for (std::int64_t k = 0; k < K; ++k) {
      const double xik = x[i * K + k];
      const float* wrow = weight + k * N;
      for (std::int64_t j = 0; j < N; ++j) logit[j] += xik * wrow[j];
    }
    for (std::int64_t j = 0; j < N; ++j) {
      const double normed = (logit[j] + bias[j] - bn_mean[j]) / std::sqrt(bn_var[j] + f64::bn_eps);
      logit[j] = scale[0] * (bn_scale[j] * normed + bn_bias[j]);
    }
    // not a guard: the softmax's shift by its max cancels
    const double mx = *std::max_element(logit.begin(), logit.end());
    double sum = 0;
    for (double& v : logit) sum += (v = std::exp(v - mx));
    for (std::int64_t j = 0; j < N; ++j) y[i * N + j] = static_cast<float>(logit[j] / sum);
  }
}
