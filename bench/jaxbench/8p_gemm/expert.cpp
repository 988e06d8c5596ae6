// 8p_gemm expert: hand-tuned SGEMM C = A·B (f32, row-major), no library calls: kforge/fused_gemm.h
// with no epilogue (its comments explain the barrier-free thread grid, the Goto/BLIS blocking and
// the 14x32 AVX-512 or 6x16 AVX2 register tile chosen at compile time).
#include "kforge_task.h"
#include "kforge/fused_gemm.h"

extern "C" void kernel(const float* a, const float* b, float* c) {
  kforge::gemm::gemm<task::M, task::K, task::N>(a, b, c);
}
