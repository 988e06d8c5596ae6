// 37k expert: swish(x·W + b)·2 as one hand-tuned SGEMM (kforge/fused_gemm.h) whose epilogue (bias,
// kforge/simd_math.h's swish_ps, ×2) is applied while the last K block's C tile is still in
// registers: y is written once and never read back. It replaced OpenBLAS's sgemm into y followed
// by a second pass over y.
#include <immintrin.h>

#include <cmath>
#include <cstdint>

#include "kforge_task.h"
#include "kforge/fused_gemm.h"
#include "kforge/simd_math.h"

namespace {

namespace gemm = kforge::gemm;
namespace simd = kforge::simd;

constexpr float kScale = static_cast<float>(task::scaling_factor);

// swish(v + bias[j])·2 on v = (x·W)[i, j]; swish_ps is AVX2, so a zmm goes by halves.
struct Epilogue {
  const float* bias;
  gemm::Vec operator()(gemm::Vec v, std::int64_t /*i*/, std::int64_t j) const {
    return gemm::by_halves(gemm::vadd(v, gemm::vloadu(bias + j)),
                           [](__m256 h) { return _mm256_mul_ps(simd::swish_ps(h), _mm256_set1_ps(kScale)); });
  }
  float operator()(float v, std::int64_t /*i*/, std::int64_t j) const {
    const float h = v + bias[j];
    return h / (1.0f + std::exp(-h)) * kScale;
  }
};

}  // namespace

extern "C" void kernel(const float* x, const float* weight, const float* bias, float* y) {
  gemm::gemm<task::M, task::K, task::N>(x, weight, y, Epilogue{bias});
}
