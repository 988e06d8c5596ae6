// Conv2d + InstanceNorm + Divide as PyTorch eager runs it: conv2d (with its bias), then the
// instance norm written out as JAX writes it (mean, biased var, normalise, affine), then divide.
#include <ATen/ATen.h>
#include <kforge/torch_view.h>

#include "kforge_task.h"

extern "C" void kernel(const float* x, const float* weight, const float* conv_bias, const float* in_weight,
                       const float* in_bias, float* y) {
  using namespace task;
  auto X = kforge_torch::view(x, {N, Cin, H, W});
  auto Wt = kforge_torch::view(weight, {Cout, Cin, KS, KS});
  auto Y = kforge_torch::view(y, {N, Cout, H - KS + 1, W - KS + 1});
  auto h = at::conv2d(X, Wt, kforge_torch::view(conv_bias, {Cout}));
  auto mean = h.mean({2, 3}, /*keepdim=*/true);
  auto var = h.var({2, 3}, /*unbiased=*/false, /*keepdim=*/true);
  h = (h - mean) / at::sqrt(var + eps);
  h = h * kforge_torch::view(in_weight, {1, Cout, 1, 1}) + kforge_torch::view(in_bias, {1, Cout, 1, 1});
  at::div_out(Y, h, at::scalar_tensor(static_cast<double>(divide_by)));
}
