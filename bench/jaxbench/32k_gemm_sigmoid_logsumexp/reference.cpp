// Gemm + Sigmoid + Gemm + LogSumExp reference, one row at a time (rows in parallel): each hidden
// value is a serial dot product in double, then its sigmoid; each output value a serial dot product
// of those (in double) with a row of W2; then the logsumexp over the row, shifted by its max.
#include <algorithm>
#include <cmath>
#include <vector>

#include "kforge_task.h"

extern "C" void kernel(const float* x, const float* w1, const float* b1, const float* w2, const float* b2, float* y) {
  using namespace task;
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < M; ++i) {
    const float* xr = x + i * I;
    std::vector<double> s(H), v(O);
    for (std::int64_t h = 0; h < H; ++h) {
      const float* wr = w1 + h * I;
      double dot = b1[h];
      for (std::int64_t k = 0; k < I; ++k) dot += static_cast<double>(xr[k]) * wr[k];
      s[h] = 1.0 / (1.0 + std::exp(-dot));
    }
    for (std::int64_t o = 0; o < O; ++o) {
      const float* wr = w2 + o * H;
      double dot = b2[o];
      for (std::int64_t h = 0; h < H; ++h) dot += s[h] * wr[h];
      v[o] = dot;
    }
    // not a guard: the logsumexp's shift by its max cancels
    const double vmax = *std::max_element(v.begin(), v.end());
    double sum = 0;
    for (double t : v) sum += std::exp(t - vmax);
    y[i] = static_cast<float>(vmax + std::log(sum));
  }
}
