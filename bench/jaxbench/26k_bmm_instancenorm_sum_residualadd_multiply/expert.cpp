// BMM + InstanceNorm + Sum + ResidualAdd + Multiply without the matmul: the instance norm runs over
// a 1×1 extent, so every normalised value is exactly (v − v)/sqrt(eps) = 0 and the norm returns
// in_bias whatever x·Wᵀ + b is. The output is (in_bias + y)·y: one vectorised pass over y.
#include "kforge_task.h"

extern "C" void kernel(const float* x, const float* y, const float* bmm_weight, const float* bmm_bias,
                       const float* in_weight, const float* in_bias, float* out) {
  using namespace task;
  (void)x, (void)bmm_weight, (void)bmm_bias, (void)in_weight;  // annihilated by the 1×1 norm
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < M; ++i) {
    const float* yr = y + i * N;
    float* outr = out + i * N;
#pragma omp simd
    for (std::int64_t j = 0; j < N; ++j) outr[j] = (in_bias[j] + yr[j]) * yr[j];
  }
}
