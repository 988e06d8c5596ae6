// Triangle multiplicative update (outgoing) as PyTorch eager runs it: the ops of JAXBench's
// workload, one by one (torch's einsum lowers the contraction to a batched matmul over channels).
#include <ATen/ATen.h>
#include <kforge/torch_view.h>

#include "kforge_task.h"

extern "C" void kernel(const float* pair_act, const float* mask, const float* left_proj_w, const float* right_proj_w,
                       const float* left_gate_w, const float* right_gate_w, const float* center_scale,
                       const float* out_proj_w, const float* out_gate_w, float* output) {
  using namespace task;
  auto pair = kforge_torch::view(pair_act, {N, N, C});
  auto Mask = kforge_torch::view(mask, {N, N, 1});
  auto Wl = kforge_torch::view(left_proj_w, {C, C});
  auto Wr = kforge_torch::view(right_proj_w, {C, C});
  auto Wlg = kforge_torch::view(left_gate_w, {C, C});
  auto Wrg = kforge_torch::view(right_gate_w, {C, C});
  auto scale = kforge_torch::view(center_scale, {C});
  auto Wo = kforge_torch::view(out_proj_w, {C, C});
  auto Wog = kforge_torch::view(out_gate_w, {C, C});
  auto Out = kforge_torch::view(output, {N, N, C});

  auto act = pair * Mask;
  auto left_proj = at::matmul(act, Wl);
  auto right_proj = at::matmul(act, Wr);
  auto left_gate = at::sigmoid(at::matmul(act, Wlg));
  auto right_gate = at::sigmoid(at::matmul(act, Wrg));
  left_proj = left_proj * left_gate;
  right_proj = right_proj * right_gate;
  auto result = at::einsum("ikc,jkc->ijc", {left_proj, right_proj});
  auto rms = at::sqrt((result * result).mean(-1, /*keepdim=*/true) + eps);
  result = result / rms * scale;
  auto out = at::matmul(result, Wo);
  auto gate = at::sigmoid(at::matmul(pair, Wog));
  at::mul_out(Out, out, gate);
}
