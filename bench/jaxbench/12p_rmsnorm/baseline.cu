// RMSNorm as PyTorch eager runs it on a GPU: the same ops as baseline.cpp, one by one, each one
// of PyTorch's CUDA kernels, on kforge's stream.
#include <kforge/torch_cuda_view.h>

#include "kforge_task.h"

extern "C" void kernel(const float* x, const float* scale, float* y, cudaStream_t stream) {
  using namespace task;
  auto guard = kforge_torch_cuda::on_stream(stream);
  auto X = kforge_torch_cuda::view(x, {B, S, D});
  auto Scale = kforge_torch_cuda::view(scale, {D});
  auto Y = kforge_torch_cuda::view(y, {B, S, D});
  auto mean2 = X.square().mean(-1, /*keepdim=*/true);
  auto normed = X * at::rsqrt(mean2 + eps);
  at::mul_out(Y, normed, Scale);
}
