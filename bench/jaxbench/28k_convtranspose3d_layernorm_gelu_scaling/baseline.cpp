// ConvTranspose3d + LayerNorm + GELU + Scaling as PyTorch eager runs it: conv_transpose3d (with
// its bias), then the layer norm over the last axis written out as JAX writes it (mean, mean of
// squared deviations, normalise, affine broadcast along W), tanh-approximated gelu, scale.
#include <ATen/ATen.h>
#include <kforge/torch_view.h>

#include "kforge_task.h"

extern "C" void kernel(const float* x, const float* conv_weight, const float* conv_bias, const float* ln_weight,
                       const float* ln_bias, float* y) {
  using namespace task;
  constexpr std::int64_t OD = (D - 1) * S - 2 * P + KS, OH = (H - 1) * S - 2 * P + KS, OW = (W - 1) * S - 2 * P + KS;
  auto X = kforge_torch::view(x, {N, Cin, D, H, W});
  auto Wt = kforge_torch::view(conv_weight, {Cin, Cout, KS, KS, KS});
  auto Y = kforge_torch::view(y, {N, Cout, OD, OH, OW});
  auto h = at::conv_transpose3d(X, Wt, kforge_torch::view(conv_bias, {Cout}), /*stride=*/S, /*padding=*/P);
  auto mean = h.mean({-1}, /*keepdim=*/true);
  auto var = (h - mean).pow(2).mean({-1}, /*keepdim=*/true);
  h = (h - mean) / at::sqrt(var + eps);
  h = h * kforge_torch::view(ln_weight, {Cout}) + kforge_torch::view(ln_bias, {Cout});
  h = at::gelu(h, "tanh");
  at::mul_out(Y, h, at::scalar_tensor(static_cast<double>(scaling_factor)));
}
