// Matmul + Mish + Mish reference: each row of x·W + b accumulated in double, then mish twice in
// double, with softplus(v) = max(v, 0) + log1p(exp(−|v|)) as jax.nn.softplus computes it (rows in
// parallel; each element's sum is serial, so the result does not depend on the thread count).
#include <algorithm>
#include <cmath>
#include <vector>

#include "kforge_task.h"

namespace {

// not a guard: the stable softplus, log1p(exp(v)) on both sides
double mish(double v) { return v * std::tanh(std::max(v, 0.0) + std::log1p(std::exp(-std::fabs(v)))); }

}  // namespace

extern "C" void kernel(const float* x, const float* weight, const float* bias, float* y) {
  using namespace task;
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < M; ++i) {
    std::vector<double> acc(N, 0.0);
    for (std::int64_t k = 0; k < K; ++k) {
      const double xik = x[i * K + k];
      const float* wrow = weight + k * N;
      for (std::int64_t j = 0; j < N; ++j) acc[j] += xik * wrow[j];
    }
    for (std::int64_t j = 0; j < N; ++j) y[i * N + j] = static_cast<float>(mish(mish(acc[j] + bias[j])));
  }
}
