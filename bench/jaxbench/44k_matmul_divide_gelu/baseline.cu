// Matmul + Divide + GELU as PyTorch eager runs it on a GPU: the ops of baseline.cpp, one by one
// (matmul through cuBLAS with PyTorch's default of no TF32, bias add, divide, the tanh GELU),
// each one of PyTorch's CUDA kernels, on kforge's stream.
#include <kforge/torch_cuda_view.h>

#include "kforge_task.h"

extern "C" void kernel(const float* x, const float* weight, const float* bias, float* y,
                       cudaStream_t stream) {
  using namespace task;
  auto guard = kforge_torch_cuda::on_stream(stream);
  auto X = kforge_torch_cuda::view(x, {M, K});
  auto Wt = kforge_torch_cuda::view(weight, {K, N});
  auto Y = kforge_torch_cuda::view(y, {M, N});
  auto h = at::matmul(X, Wt) + kforge_torch_cuda::view(bias, {N});
  h = h / divisor;
  at::gelu_out(Y, h, "tanh");
}
