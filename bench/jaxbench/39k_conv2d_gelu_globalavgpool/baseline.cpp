// Conv2d → GELU → global average pool as PyTorch eager runs it: the ops of JAXBench's workload,
// one by one (the NHWC/HWIO transposes there are layout only: at::conv2d takes NCHW and OIHW).
#include <ATen/ATen.h>
#include <kforge/torch_view.h>

#include "kforge_task.h"

extern "C" void kernel(const float* x, const float* weight, const float* bias, float* y) {
  using namespace task;
  auto X = kforge_torch::view(x, {NB, CI, H, W});
  auto Wt = kforge_torch::view(weight, {CO, CI, KS, KS});
  auto Y = kforge_torch::view(y, {NB, CO});
  auto h = at::conv2d(X, Wt) + kforge_torch::view(bias, {1, CO, 1, 1});
  h = at::gelu(h, "tanh");
  at::mean_out(Y, h, {2, 3});
}
