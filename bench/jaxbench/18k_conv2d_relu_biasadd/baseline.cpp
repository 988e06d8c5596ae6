// Conv2D + ReLU + BiasAdd as PyTorch eager runs it: conv2d (with its bias), relu, add.
#include <ATen/ATen.h>
#include <kforge/torch_view.h>

#include "kforge_task.h"

extern "C" void kernel(const float* x, const float* weight, const float* conv_bias, const float* bias, float* y) {
  using namespace task;
  auto X = kforge_torch::view(x, {N, Cin, H, W});
  auto Wt = kforge_torch::view(weight, {Cout, Cin, KS, KS});
  auto Y = kforge_torch::view(y, {N, Cout, H - KS + 1, W - KS + 1});
  auto conv = at::conv2d(X, Wt, kforge_torch::view(conv_bias, {Cout}));
  auto act = at::relu(conv);
  at::add_out(Y, act, kforge_torch::view(bias, {Cout, 1, 1}));
}
