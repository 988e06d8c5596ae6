// Gemm + Divide + Sum + Scaling reference: every product (x·Wᵀ)_ij is a serial dot product in
// double, then divided, summed over j in double and scaled (rows in parallel).
#include "kforge_task.h"

extern "C" void kernel(const float* x, const float* weight, float* y) {
  using namespace task;
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < M; ++i) {
    const float* xr = x + i * K;
    double row_sum = 0;
    for (std::int64_t j = 0; j < H; ++j) {
      const float* wr = weight + j * K;
      double dot = 0;
      for (std::int64_t k = 0; k < K; ++k) dot += static_cast<double>(xr[k]) * wr[k];
      row_sum += dot / static_cast<double>(divisor);
    }
    y[i] = static_cast<float>(row_sum * f64::scaling_factor);
  }
}
