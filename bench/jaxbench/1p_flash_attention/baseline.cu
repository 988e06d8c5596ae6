// Causal multi-head attention as PyTorch eager runs it on a GPU: the ops of baseline.cpp, one by
// one (scores, scale, masked fill from a materialised tril mask, softmax, weighted sum of
// values), each one of PyTorch's CUDA kernels (the matmuls cuBLAS's, TF32 off as PyTorch's
// default), on kforge's stream.
#include <kforge/torch_cuda_view.h>

#include <cmath>

#include "kforge_task.h"

extern "C" void kernel(const float* q, const float* k, const float* v, float* o,
                       cudaStream_t stream) {
  using namespace task;
  auto guard = kforge_torch_cuda::on_stream(stream);
  auto Q = kforge_torch_cuda::view(q, {B, H, S, D});
  auto K = kforge_torch_cuda::view(k, {B, H, S, D});
  auto V = kforge_torch_cuda::view(v, {B, H, S, D});
  auto O = kforge_torch_cuda::view(o, {B, H, S, D});
  const double scale = 1.0 / std::sqrt(static_cast<double>(D));
  auto attn = at::matmul(Q, K.transpose(-2, -1)) * scale;
  auto mask = at::ones({S, S}, Q.options()).tril_();
  attn = at::where(mask.to(at::kBool), attn, at::scalar_tensor(mask_value, Q.options()));
  attn = at::softmax(attn, -1);
  at::matmul_out(O, attn, V);
}
