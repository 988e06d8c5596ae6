// 19k expert: relu((x·W + b − 2)·1.5) as one hand-tuned SGEMM (kforge/fused_gemm.h) whose
// epilogue is applied while the last K block's C tile is still in registers (the store of the
// micro-kernel), so y is written once and never read back: no second pass.
#include <algorithm>
#include <cstdint>

#include "kforge_task.h"
#include "kforge/fused_gemm.h"

namespace {

namespace gemm = kforge::gemm;

constexpr float kShift = static_cast<float>(task::subtract_value);
constexpr float kScale = static_cast<float>(task::multiply_value);

// relu((v + bias[j] − 2)·1.5) on v = (x·W)[i, j].
struct Epilogue {
  const float* bias;
  gemm::Vec operator()(gemm::Vec v, std::int64_t /*i*/, std::int64_t j) const {
    const gemm::Vec h = gemm::vadd(v, gemm::vloadu(bias + j));
    return gemm::vmax(gemm::vmul(gemm::vadd(h, gemm::vset1(-kShift)), gemm::vset1(kScale)), gemm::vzero());
  }
  float operator()(float v, std::int64_t /*i*/, std::int64_t j) const {
    return std::max((v + bias[j] - kShift) * kScale, 0.0f);
  }
};

}  // namespace

extern "C" void kernel(const float* x, const float* weight, const float* bias, float* y) {
  gemm::gemm<task::M, task::K, task::N>(x, weight, y, Epilogue{bias});
}
