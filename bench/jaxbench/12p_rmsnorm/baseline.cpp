// RMSNorm as PyTorch eager runs it: the ops of JAXBench's workload, one by one.
#include <ATen/ATen.h>
#include <kforge/torch_view.h>

#include "kforge_task.h"

extern "C" void kernel(const float* x, const float* scale, float* y) {
  using namespace task;
  auto X = kforge_torch::view(x, {B, S, D});
  auto Scale = kforge_torch::view(scale, {D});
  auto Y = kforge_torch::view(y, {B, S, D});
  auto mean2 = X.square().mean(-1, /*keepdim=*/true);
  auto normed = X * at::rsqrt(mean2 + eps);
  at::mul_out(Y, normed, Scale);
}
