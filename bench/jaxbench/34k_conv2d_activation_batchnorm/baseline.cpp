// Conv2d → Mish → BatchNorm as PyTorch eager runs it: the ops of JAXBench's workload, one by one
// (the NHWC/HWIO transposes there are layout only: at::conv2d takes NCHW and OIHW directly).
#include <ATen/ATen.h>
#include <kforge/torch_view.h>

#include "kforge_task.h"

extern "C" void kernel(const float* x, const float* conv_weight, const float* conv_bias, const float* bn_weight,
                       const float* bn_bias, float* y) {
  using namespace task;
  auto X = kforge_torch::view(x, {NB, CI, H, W});
  auto Wt = kforge_torch::view(conv_weight, {CO, CI, KS, KS});
  auto channel = [](const float* p) { return kforge_torch::view(p, {1, CO, 1, 1}); };
  auto Y = kforge_torch::view(y, {NB, CO, H - KS + 1, W - KS + 1});

  auto conv = at::conv2d(X, Wt) + channel(conv_bias);
  auto act = at::mul(at::tanh(at::softplus(conv)), conv);
  auto mean = act.mean({0, 2, 3}, /*keepdim=*/true);
  auto var = (act - mean).square().mean({0, 2, 3}, /*keepdim=*/true);
  auto normed = (act - mean) / at::sqrt(var + eps);
  at::add_out(Y, normed * channel(bn_weight), channel(bn_bias));
}
