// Conv3d + Mish + Tanh as PyTorch eager runs it: conv3d (with its bias), then mish written out as
// the JAX code writes it (exp, add 1, log, tanh, multiply) and tanh; each its own op.
#include <ATen/ATen.h>
#include <kforge/torch_view.h>

#include "kforge_task.h"

extern "C" void kernel(const float* x, const float* weight, const float* bias, float* y) {
  using namespace task;
  auto X = kforge_torch::view(x, {N, Cin, D, H, W});
  auto Wt = kforge_torch::view(weight, {Cout, Cin, KS, KS, KS});
  auto Y = kforge_torch::view(y, {N, Cout, D - KS + 1, H - KS + 1, W - KS + 1});
  auto h = at::conv3d(X, Wt, kforge_torch::view(bias, {Cout}));
  h = h * at::tanh(at::log(at::exp(h) + 1));
  at::tanh_out(Y, h);
}
