// GEMM through cuBLAS (FP32, no TF32: the task's tolerance is FP32's). Row-major C = A·B is
// column-major Cᵀ = Bᵀ·Aᵀ, so cuBLAS is asked for that product with the operands swapped and no
// transposition. The handle is made once per process and bound to kforge's stream on each call.
#include <cublas_v2.h>

#include "kforge_task.h"

namespace {

cublasHandle_t handle() {
  static cublasHandle_t h = [] {
    cublasHandle_t made = nullptr;
    cublasCreate(&made);
    cublasSetMathMode(made, CUBLAS_PEDANTIC_MATH);  // FP32 FMA only, as the reference
    return made;
  }();
  return h;
}

}  // namespace

extern "C" void kernel(const float* a, const float* b, float* c, cudaStream_t stream) {
  using namespace task;
  cublasSetStream(handle(), stream);
  const float one = 1.0f, zero = 0.0f;
  cublasSgemm(handle(), CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(N), static_cast<int>(M),
              static_cast<int>(K), &one, b, static_cast<int>(N), a, static_cast<int>(K), &zero, c,
              static_cast<int>(N));
}
