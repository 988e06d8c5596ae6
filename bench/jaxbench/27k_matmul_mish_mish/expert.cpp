// 27k expert: mish(mish(x·W + b)) as one hand-tuned SGEMM (kforge/fused_gemm.h) whose epilogue
// (the bias and both mish, kforge/simd_math.h's single-exp mish_ps) is applied while the last K
// block's C tile is still in registers (the store of the micro-kernel): y is written once and
// never read back. It replaced OpenBLAS's sgemm and a second pass over y.
#include <immintrin.h>

#include <cstdint>

#include "kforge_task.h"
#include "kforge/fused_gemm.h"
#include "kforge/simd_math.h"

namespace {

namespace gemm = kforge::gemm;
namespace simd = kforge::simd;

// mish(mish(v + bias[j])) on v = (x·W)[i, j]; mish_ps is AVX2, so a zmm goes by halves.
struct Epilogue {
  const float* bias;
  gemm::Vec operator()(gemm::Vec v, std::int64_t /*i*/, std::int64_t j) const {
    return gemm::by_halves(gemm::vadd(v, gemm::vloadu(bias + j)),
                           [](__m256 h) { return simd::mish_ps(simd::mish_ps(h)); });
  }
  float operator()(float v, std::int64_t /*i*/, std::int64_t j) const {
    return simd::mish(simd::mish(v + bias[j]));
  }
};

}  // namespace

extern "C" void kernel(const float* x, const float* weight, const float* bias, float* y) {
  gemm::gemm<task::M, task::K, task::N>(x, weight, y, Epilogue{bias});
}
