// Ragged paged attention as PyTorch eager runs it: JAXBench's static loop over the slots, each
// slot's ops one by one (gather its capacity of query rows and all its pages, split the interleaved
// K and V heads, repeat them, dense scores, mask, softmax, p·v, zero invalid rows, scatter-add).
#include <ATen/ATen.h>
#include <kforge/torch_view.h>

#include "kforge_task.h"

namespace {

using namespace task;

// The static per-slot query capacity (JAXBench's ACTIVE_Q_LENS).
constexpr std::int64_t capacity(std::int64_t slot) {
  return slot < NDEC ? 1 : slot < NDEC + NPRE - 1 ? CHUNK : T - NDEC - (NPRE - 1) * CHUNK;
}

}  // namespace

extern "C" void kernel(const float* queries, const float* kv_pages, const std::int32_t* kv_lens,
                       const std::int32_t* page_indices, const std::int32_t* cu_q_lens, const std::int32_t* num_seqs,
                       float* out) {
  constexpr std::int64_t S = PPS * PS;
  auto Q = kforge_torch::view(queries, {T, Hq, D});
  auto KV = kforge_torch::view(kv_pages, {NS * PPS, PS, 2 * Hkv, D});
  auto lens = kforge_torch::view(kv_lens, {NS});
  auto pages = kforge_torch::view(page_indices, {NS, PPS});
  auto cu = kforge_torch::view(cu_q_lens, {NS + 1});
  auto active = kforge_torch::view(num_seqs, {1});
  auto O = kforge_torch::view(out, {T, Hq, D});

  O.zero_();
  auto kv_span = at::arange(S, at::kInt).view({1, 1, S});
  for (std::int64_t slot = 0; slot < NDEC + NPRE; ++slot) {
    const std::int64_t cap = capacity(slot);
    auto q_start = cu[slot];
    auto q_len = cu[slot + 1] - q_start;
    auto kv_len = lens[slot];

    auto q_offsets = at::arange(cap, at::kInt);
    auto q_positions = at::clamp_max(q_start + q_offsets, T - 1);
    auto q = at::index_select(Q, 0, q_positions);

    auto slot_pages = at::index_select(KV, 0, pages[slot]);
    auto k = slot_pages.slice(2, 0, 2 * Hkv, 2).reshape({S, Hkv, D});
    auto v = slot_pages.slice(2, 1, 2 * Hkv, 2).reshape({S, Hkv, D});
    k = at::repeat_interleave(k, Hq / Hkv, /*dim=*/1);
    v = at::repeat_interleave(v, Hq / Hkv, /*dim=*/1);

    auto attn = at::einsum("qhd,khd->hqk", {q, k});
    attn.mul_(sm_scale);
    auto q_span = (kv_len - q_len) + q_offsets.view({1, cap, 1});
    auto mask = (q_span < kv_span) | (kv_span >= kv_len);
    attn = at::where(mask, mask_value, attn);
    attn = at::softmax(attn, -1);
    auto o = at::einsum("hqk,khd->qhd", {attn, v});

    auto valid = (q_offsets < q_len) & (active[0] > slot);
    o = at::where(valid.view({cap, 1, 1}), o, 0.0);
    O.index_add_(0, q_positions, o);
  }
}
