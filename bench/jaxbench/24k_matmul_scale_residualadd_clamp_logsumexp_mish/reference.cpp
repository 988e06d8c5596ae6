// Matmul + Scale + ResidualAdd + Clamp + LogSumExp + Mish reference: each row of x·Wᵀ + b
// accumulated in double, then the epilogue in double: ×2, doubled again, clipped, the row's
// logsumexp z (shifted by the row max), and z·mish(z) (rows in parallel; every sum is serial).
#include <algorithm>
#include <cmath>
#include <vector>

#include "kforge/guard_probe.h"
#include "kforge_task.h"

extern "C" void kernel(const float* x, const float* weight, const float* bias, float* y) {
  using namespace task;
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < M; ++i) {
    const float* xr = x + i * K;
    std::vector<double> v(N);
    for (std::int64_t j = 0; j < N; ++j) {
      const float* wr = weight + j * K;
      double dot = bias[j];
      for (std::int64_t k = 0; k < K; ++k) dot += static_cast<double>(xr[k]) * wr[k];
      double h = dot * static_cast<double>(scale_factor);
      h = h + h;
      // The clamp to [clamp_min, clamp_max]. Its lower bound cannot move the output: n values below
      // −10 raise the row's Σ exp(v), which is at least e^max(v), by less than n·e^−10, so z moves by
      // < n·e^(−10 − max v): under 1e-6 here (max v ≈ 10), far inside the tolerance on y ≈ z².
      h = std::max(h, static_cast<double>(clamp_min));  // not a guard: see above
      v[j] = KFORGE_GUARD("clamp.high", h > clamp_max) ? static_cast<double>(clamp_max) : h;
    }
    // not a guard: the logsumexp's shift by its max cancels
    const double vmax = *std::max_element(v.begin(), v.end());
    double sum = 0;
    for (double h : v) sum += std::exp(h - vmax);
    const double z = vmax + std::log(sum);
    // not a guard: the stable softplus, log1p(exp(v)) on both sides
    const double softplus = std::max(z, 0.0) + std::log1p(std::exp(-std::fabs(z)));
    y[i] = static_cast<float>(z * (z * std::tanh(softplus)));
  }
}
