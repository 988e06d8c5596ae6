// host: link_refused
// Calls cuBLAS: candidates may link the CUDA runtime only. Caught by the link check (no allowed
// library provides cublasCreate_v2).
#include <cublas_v2.h>
#include "kforge_task.h"
extern "C" void kernel(const float* x, const float* scale, float* y, cudaStream_t stream) {
  cublasHandle_t h;
  cublasCreate(&h);
  cublasSetStream(h, stream);
  cublasScopy(h, static_cast<int>(task::y_numel), x, 1, y, 1);
}
