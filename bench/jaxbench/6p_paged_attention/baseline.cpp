// Paged decode attention as PyTorch eager runs it: the ops of JAXBench's workload, one by one
// (gather every page of every sequence, repeat the kv heads, dense scores, length mask with -1e30,
// softmax, p·v).
#include <ATen/ATen.h>
#include <kforge/torch_view.h>

#include "kforge_task.h"

extern "C" void kernel(const float* queries, const float* k_pages, const float* v_pages, const std::int32_t* kv_lens,
                       const std::int32_t* page_indices, float* out) {
  using namespace task;
  constexpr std::int64_t S = PPS * PS;
  auto Q = kforge_torch::view(queries, {N, Hq, D});
  auto KP = kforge_torch::view(k_pages, {N * PPS, PS, Hkv, D});
  auto VP = kforge_torch::view(v_pages, {N * PPS, PS, Hkv, D});
  auto lens = kforge_torch::view(kv_lens, {N});
  auto pages = kforge_torch::view(page_indices, {N * PPS});
  auto O = kforge_torch::view(out, {N, Hq, D});

  auto k = at::index_select(KP, 0, pages).view({N, S, Hkv, D});
  auto v = at::index_select(VP, 0, pages).view({N, S, Hkv, D});
  k = at::repeat_interleave(k, Hq / Hkv, /*dim=*/2);
  v = at::repeat_interleave(v, Hq / Hkv, /*dim=*/2);
  auto attn = at::einsum("nhd,nkhd->nhk", {Q, k}) * sm_scale;
  auto mask = at::arange(S, at::kInt).unsqueeze(0) < lens.unsqueeze(1);
  attn = at::where(mask.unsqueeze(1), attn, -1e30);
  attn = at::softmax(attn, -1);
  O.copy_(at::einsum("nhk,nkhd->nhd", {attn, v}));
}
