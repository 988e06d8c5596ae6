// Matmul + AvgPool + GELU + Scale + Max, with the pool moved in front of the matmul: averaging
// windows of P columns is linear, so pool(x·W + b) = x·pool(W) + pool(b). The weight is pooled
// once per call (one pass over it), OpenBLAS multiplies P times fewer columns, and a short pass
// per row applies the pooled bias, GELU, scale and max.
#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <vector>

#include "kforge_task.h"

extern "C" void kernel(const float* x, const float* weight, const float* bias, float* y) {
  using namespace task;
  constexpr std::int64_t NP = N / P;
  static std::vector<float> pooled_w(K * NP), pooled_b(NP), h(M * NP);
#pragma omp parallel for schedule(static)
  for (std::int64_t k = 0; k < K; ++k)
    for (std::int64_t p = 0; p < NP; ++p) {
      float sum = 0;
#pragma omp simd reduction(+ : sum)
      for (std::int64_t t = 0; t < P; ++t) sum += weight[k * N + p * P + t];
      pooled_w[k * NP + p] = sum / P;
    }
  for (std::int64_t p = 0; p < NP; ++p) {
    float sum = 0;
    for (std::int64_t t = 0; t < P; ++t) sum += bias[p * P + t];
    pooled_b[p] = sum / P;
  }
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, NP, K, 1.0f, x, K, pooled_w.data(), NP, 0.0f, h.data(), NP);
  const float c = static_cast<float>(std::sqrt(2.0 / std::numbers::pi));
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < M; ++i) {
    float mx = -std::numeric_limits<float>::infinity();
    for (std::int64_t p = 0; p < NP; ++p) {
      const float v = h[i * NP + p] + pooled_b[p];
      mx = std::max(mx, 0.5f * v * (1.0f + std::tanh(c * (v + 0.044715f * v * v * v))));
    }
    y[i] = mx * static_cast<float>(scale_factor);
  }
}
