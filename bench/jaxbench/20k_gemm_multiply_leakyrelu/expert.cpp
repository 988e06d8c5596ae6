// 20k expert: leaky_relu((x·W + b)·2, 0.1) as one hand-tuned SGEMM (kforge/fused_gemm.h) whose
// epilogue (bias, ×2, the leaky ReLU) is applied while the last K block's C tile is still in
// registers: y is written once and never read back. It replaced OpenBLAS's sgemm into y followed
// by a second pass over y.
#include <cstdint>

#include "kforge_task.h"
#include "kforge/fused_gemm.h"

namespace {

namespace gemm = kforge::gemm;

constexpr float kScale = static_cast<float>(task::multiplier);
constexpr float kSlope = static_cast<float>(task::negative_slope);
static_assert(kSlope >= 0.0f && kSlope <= 1.0f, "max(h, slope·h) is the leaky ReLU only for slope in [0, 1]");

// max(h, 0.1·h) with h = (v + bias[j])·2 on v = (x·W)[i, j].
struct Epilogue {
  const float* bias;
  gemm::Vec operator()(gemm::Vec v, std::int64_t /*i*/, std::int64_t j) const {
    const gemm::Vec h = gemm::vmul(gemm::vadd(v, gemm::vloadu(bias + j)), gemm::vset1(kScale));
    return gemm::vmax(h, gemm::vmul(h, gemm::vset1(kSlope)));
  }
  float operator()(float v, std::int64_t /*i*/, std::int64_t j) const {
    const float h = (v + bias[j]) * kScale;
    return h >= 0 ? h : h * kSlope;
  }
};

}  // namespace

extern "C" void kernel(const float* x, const float* weight, const float* bias, float* y) {
  gemm::gemm<task::M, task::K, task::N>(x, weight, y, Epilogue{bias});
}
