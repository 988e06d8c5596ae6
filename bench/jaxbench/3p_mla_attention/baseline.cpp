// Multi-head latent attention as PyTorch eager runs it: the ops of JAXBench's workload, one by one
// (projections, slices, RoPE tables and rotations, concatenations, transposes, scores, scale,
// masked fill from a materialised tril mask, softmax, weighted sum of values, output projection).
#include <ATen/ATen.h>
#include <kforge/torch_view.h>

#include <cmath>

#include "kforge_task.h"

namespace {

// x1, x2 = the halves of the last axis; [x1·cos − x2·sin, x2·cos + x1·sin].
at::Tensor apply_rope(const at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin) {
  const std::int64_t half = x.size(-1) / 2;
  auto x1 = x.slice(-1, 0, half);
  auto x2 = x.slice(-1, half);
  auto c = cos.unsqueeze(0).unsqueeze(2);  // [1, S, 1, half]
  auto s = sin.unsqueeze(0).unsqueeze(2);
  return at::cat({x1 * c - x2 * s, x2 * c + x1 * s}, -1);
}

}  // namespace

extern "C" void kernel(const float* x, const float* q_down, const float* q_up, const float* kv_down, const float* k_up,
                       const float* v_up, const float* o_proj, float* out) {
  using namespace task;
  auto X = kforge_torch::view(x, {B, S, E});
  auto Wqd = kforge_torch::view(q_down, {E, QL});
  auto Wqu = kforge_torch::view(q_up, {QL, H * (NOPE + ROPE)});
  auto Wkvd = kforge_torch::view(kv_down, {E, KVL + ROPE});
  auto Wku = kforge_torch::view(k_up, {KVL, H * NOPE});
  auto Wvu = kforge_torch::view(v_up, {KVL, H * VD});
  auto Wo = kforge_torch::view(o_proj, {H * VD, E});
  auto Out = kforge_torch::view(out, {B, S, E});
  auto f32 = X.options();

  auto q = at::matmul(at::matmul(X, Wqd), Wqu).reshape({B, S, H, NOPE + ROPE});
  auto q_nope = q.slice(-1, 0, NOPE);
  auto q_rope = q.slice(-1, NOPE);
  auto kv = at::matmul(X, Wkvd);
  auto k_latent = kv.slice(-1, 0, KVL);
  auto k_rope_raw = kv.slice(-1, KVL);
  auto k_nope = at::matmul(k_latent, Wku).reshape({B, S, H, NOPE});

  auto freqs = 1.0 / at::pow(static_cast<double>(rope_theta), at::arange(0, ROPE, 2, f32) / static_cast<double>(ROPE));
  auto angles = at::outer(at::arange(S, f32), freqs);
  auto cos = angles.cos();
  auto sin = angles.sin();
  auto k_rope = k_rope_raw.unsqueeze(2).expand({B, S, H, ROPE});
  q_rope = apply_rope(q_rope, cos, sin);
  k_rope = apply_rope(k_rope, cos, sin);

  auto v = at::matmul(k_latent, Wvu).reshape({B, S, H, VD});
  auto q_full = at::cat({q_nope, q_rope}, -1).transpose(1, 2);
  auto k_full = at::cat({k_nope, k_rope}, -1).transpose(1, 2);
  v = v.transpose(1, 2);
  const double scale = 1.0 / std::sqrt(static_cast<double>(NOPE + ROPE));
  auto attn = at::matmul(q_full, k_full.transpose(-2, -1)) * scale;
  auto mask = at::ones({S, S}, f32).tril_();
  attn = at::where(mask.to(at::kBool), attn, at::scalar_tensor(mask_value, f32));
  attn = at::softmax(attn, -1);
  auto o = at::matmul(attn, v).transpose(1, 2).reshape({B, S, H * VD});
  at::matmul_out(Out, o, Wo);
}
