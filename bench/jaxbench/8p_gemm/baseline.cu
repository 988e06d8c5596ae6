// GEMM as PyTorch eager runs it on a GPU: one at::mm (cuBLAS underneath) on kforge's stream, with
// PyTorch's defaults (TF32 off for matmuls: torch.backends.cuda.matmul.allow_tf32 is False).
#include <kforge/torch_cuda_view.h>

#include "kforge_task.h"

extern "C" void kernel(const float* a, const float* b, float* c, cudaStream_t stream) {
  using namespace task;
  auto guard = kforge_torch_cuda::on_stream(stream);
  auto C = kforge_torch_cuda::view(c, {M, N});
  at::mm_out(C, kforge_torch_cuda::view(a, {M, K}), kforge_torch_cuda::view(b, {K, N}));
}
