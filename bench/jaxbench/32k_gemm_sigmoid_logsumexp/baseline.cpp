// Gemm + Sigmoid + Gemm + LogSumExp as PyTorch eager runs it: matmul with W1ᵀ and bias add,
// sigmoid, matmul with W2ᵀ and bias add, logsumexp over axis 1; each its own op.
#include <ATen/ATen.h>
#include <kforge/torch_view.h>

#include "kforge_task.h"

extern "C" void kernel(const float* x, const float* w1, const float* b1, const float* w2, const float* b2, float* y) {
  using namespace task;
  auto X = kforge_torch::view(x, {M, I});
  auto W1 = kforge_torch::view(w1, {H, I});
  auto W2 = kforge_torch::view(w2, {O, H});
  auto Y = kforge_torch::view(y, {M});
  auto h = at::matmul(X, W1.t()) + kforge_torch::view(b1, {H});
  h = at::sigmoid(h);
  h = at::matmul(h, W2.t()) + kforge_torch::view(b2, {O});
  at::logsumexp_out(Y, h, {1});
}
