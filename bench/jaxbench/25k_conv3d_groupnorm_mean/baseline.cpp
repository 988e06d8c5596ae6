// Conv3d + GroupNorm + Mean as PyTorch eager runs it: conv3d (with its bias), then the group norm
// written out as JAX writes it (reshape to groups, mean, biased var, normalise, reshape back,
// affine), then the mean over all but the batch axis.
#include <ATen/ATen.h>
#include <kforge/torch_view.h>

#include "kforge_task.h"

extern "C" void kernel(const float* x, const float* weight, const float* conv_bias, const float* gamma,
                       const float* beta, float* y) {
  using namespace task;
  constexpr std::int64_t OD = D - KS + 1, OH = H - KS + 1, OW = W - KS + 1;
  auto X = kforge_torch::view(x, {N, Cin, D, H, W});
  auto Wt = kforge_torch::view(weight, {Cout, Cin, KS, KS, KS});
  auto Y = kforge_torch::view(y, {N});
  auto h = at::conv3d(X, Wt, kforge_torch::view(conv_bias, {Cout}));
  auto g = h.reshape({N, G, Cout / G, OD, OH, OW});
  auto mean = g.mean({2, 3, 4, 5}, /*keepdim=*/true);
  auto var = g.var({2, 3, 4, 5}, /*unbiased=*/false, /*keepdim=*/true);
  g = (g - mean) / at::sqrt(var + eps);
  h = g.reshape({N, Cout, OD, OH, OW});
  h = h * kforge_torch::view(gamma, {1, Cout, 1, 1, 1}) + kforge_torch::view(beta, {1, Cout, 1, 1, 1});
  at::mean_out(Y, h, {1, 2, 3, 4});
}
