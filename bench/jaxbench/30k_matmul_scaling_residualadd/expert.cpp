// 30k expert: 1.5·(x·W + b) (h·0.5 + h with h = x·W + b) as one hand-tuned SGEMM
// (kforge/fused_gemm.h) whose epilogue (bias, ×1.5) is applied while the last K block's C tile is
// still in registers: y is written once. It replaced OpenBLAS's sgemm with alpha = 1.5, beta = 1
// over a y pre-filled with 1.5·b.
#include <cstdint>

#include "kforge_task.h"
#include "kforge/fused_gemm.h"

namespace {

namespace gemm = kforge::gemm;

constexpr float kScale = 1.0f + static_cast<float>(task::scaling_factor);

// (v + bias[j])·1.5 on v = (x·W)[i, j].
struct Epilogue {
  const float* bias;
  gemm::Vec operator()(gemm::Vec v, std::int64_t /*i*/, std::int64_t j) const {
    return gemm::vmul(gemm::vadd(v, gemm::vloadu(bias + j)), gemm::vset1(kScale));
  }
  float operator()(float v, std::int64_t /*i*/, std::int64_t j) const { return (v + bias[j]) * kScale; }
};

}  // namespace

extern "C" void kernel(const float* x, const float* weight, const float* bias, float* y) {
  gemm::gemm<task::M, task::K, task::N>(x, weight, y, Epilogue{bias});
}
