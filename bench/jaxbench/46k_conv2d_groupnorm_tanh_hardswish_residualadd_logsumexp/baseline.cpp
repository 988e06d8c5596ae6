// Conv2d → GroupNorm → Tanh → HardSwish → residual → LogSumExp as PyTorch eager runs it: the ops
// of JAXBench's workload, one by one (the NHWC/HWIO transposes there are layout only: at::conv2d
// takes NCHW and OIHW directly).
#include <ATen/ATen.h>
#include <kforge/torch_view.h>

#include "kforge_task.h"

extern "C" void kernel(const float* x, const float* conv_weight, const float* conv_bias, const float* gn_weight,
                       const float* gn_bias, float* y) {
  using namespace task;
  constexpr std::int64_t OH = H - KS + 1, OW = W - KS + 1;
  auto X = kforge_torch::view(x, {NB, CI, H, W});
  auto Wt = kforge_torch::view(conv_weight, {CO, CI, KS, KS});
  auto channel = [](const float* p) { return kforge_torch::view(p, {1, CO, 1, 1}); };
  auto Y = kforge_torch::view(y, {NB, 1, OH, OW});

  auto conv = at::conv2d(X, Wt) + channel(conv_bias);
  auto grouped = conv.view({NB, G, CO / G, OH, OW});
  auto mean = grouped.mean({2, 3, 4}, /*keepdim=*/true);
  auto var = grouped.var({2, 3, 4}, /*unbiased=*/false, /*keepdim=*/true);
  auto normed = ((grouped - mean) / at::sqrt(var + eps)).view({NB, CO, OH, OW});
  normed = normed * channel(gn_weight) + channel(gn_bias);
  auto t = at::tanh(normed);
  auto hard_swish = t * at::clamp_max(at::clamp_min(t + 3, 0), 6) / 6;
  auto res = conv + hard_swish;
  at::logsumexp_out(Y, res, {1}, /*keepdim=*/true);
}
