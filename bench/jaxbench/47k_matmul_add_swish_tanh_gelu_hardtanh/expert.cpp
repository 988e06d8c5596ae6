// 47k expert: clip(gelu_tanh(tanh(swish(x·W + b + add))), −1, 1) as one hand-tuned SGEMM
// (kforge/fused_gemm.h) whose epilogue (both biases, swish, tanh, the tanh-form GELU and the clip,
// every transcendental through kforge/simd_math.h's one polynomial exp) is applied while the last
// K block's C tile is still in registers: y is written once and never read back. It replaced
// OpenBLAS's sgemm into y followed by a second pass over y.
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "kforge_task.h"
#include "kforge/fused_gemm.h"
#include "kforge/simd_math.h"

namespace {

namespace gemm = kforge::gemm;
namespace simd = kforge::simd;

// clip(gelu_tanh(tanh(swish(h))), −1, 1), eight lanes.
inline __m256 tail(__m256 h) {
  const __m256 g = simd::gelu_tanh_ps(simd::tanh_ps(simd::swish_ps(h)));
  return _mm256_min_ps(_mm256_max_ps(g, _mm256_set1_ps(-1.0f)), _mm256_set1_ps(1.0f));
}

// tail(v + bias[j] + add_value[j]) on v = (x·W)[i, j]; a zmm goes by halves.
struct Epilogue {
  const float* bias;
  const float* add_value;
  gemm::Vec operator()(gemm::Vec v, std::int64_t /*i*/, std::int64_t j) const {
    const gemm::Vec h = gemm::vadd(gemm::vadd(v, gemm::vloadu(bias + j)), gemm::vloadu(add_value + j));
    return gemm::by_halves(h, tail);
  }
  float operator()(float v, std::int64_t /*i*/, std::int64_t j) const {
    const float h = v + bias[j] + add_value[j];
    return std::clamp(simd::gelu_tanh(std::tanh(h / (1.0f + std::exp(-h)))), -1.0f, 1.0f);
  }
};

}  // namespace

extern "C" void kernel(const float* x, const float* weight, const float* bias, const float* add_value, float* y) {
  gemm::gemm<task::M, task::K, task::N>(x, weight, y, Epilogue{bias, add_value});
}
