// Matmul + BatchNorm (eval) + BiasAdd + Divide + Swish reference: each row of x·W accumulated in
// double (rows in parallel; each element's sum is serial, so the result does not depend on the
// thread count), the epilogue in double.
#include <cmath>
#include <vector>

#include "kforge_task.h"

extern "C" void kernel(const float* x, const float* weight, const float* linear_bias, const float* bn_scale,
                       const float* bn_bias, const float* bn_mean, const float* bn_var, const float* bias, float* y) {
  using namespace task;
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < M; ++i) {
    std::vector<double> acc(N, 0.0);
    for (std::int64_t k = 0; k < K; ++k) {
      const double xik = x[i * K + k];
      const float* wrow = weight + k * N;
      for (std::int64_t j = 0; j < N; ++j) acc[j] += xik * wrow[j];
    }
    for (std::int64_t j = 0; j < N; ++j) {
      const double normed = (acc[j] + linear_bias[j] - bn_mean[j]) / std::sqrt(bn_var[j] + f64::bn_eps);
      const double v = (bn_scale[j] * normed + bn_bias[j] + bias[0]) / static_cast<double>(divide_value);
      y[i * N + j] = static_cast<float>(v / (1.0 + std::exp(-v)));
    }
  }
}
