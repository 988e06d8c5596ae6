// y = relu(x·W + bias) as one cuBLASLt matmul with the RELU_BIAS epilogue: the bias add and the
// ReLU happen as the output tile is written, with no second pass over y. Row-major y = x·W is
// column-major yᵀ = Wᵀ·xᵀ, so the operands are swapped; the bias (length N) then runs along the
// rows of the column-major result, which is what the epilogue's bias vector indexes.
#include "kforge/cublaslt_gemm.h"
#include "kforge_task.h"

extern "C" void kernel(const float* x, const float* weight, const float* bias, float* y,
                       cudaStream_t stream) {
  using namespace task;
  kforge::cuda::lt_gemm_epilogue(x, weight, bias, y, M, N, K, 1.0f, CUBLASLT_EPILOGUE_RELU_BIAS,
                                 stream);
}
