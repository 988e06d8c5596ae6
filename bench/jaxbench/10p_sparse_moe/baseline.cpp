// Sparse MoE as PyTorch eager runs it: the ops of JAXBench's workload, one by one. Like the
// original, every token goes through all NE experts (dense einsums) and the routing weights,
// zero for unselected experts, combine the results.
#include <ATen/ATen.h>
#include <kforge/torch_view.h>

#include "kforge_task.h"

extern "C" void kernel(const float* x, const float* router_weights, const float* expert_gate_kernels,
                       const float* expert_up_kernels, const float* expert_down_kernels, float* out) {
  using namespace task;
  auto X = kforge_torch::view(x, {B, S, E});
  auto Router = kforge_torch::view(router_weights, {E, NE});
  auto Gate = kforge_torch::view(expert_gate_kernels, {NE, E, M});
  auto Up = kforge_torch::view(expert_up_kernels, {NE, E, M});
  auto Down = kforge_torch::view(expert_down_kernels, {NE, M, E});
  auto Out = kforge_torch::view(out, {B, S, E});

  auto logits = at::matmul(X, Router);
  auto [top_logits, top_indices] = at::topk(logits, TOPK, /*dim=*/-1);
  auto router_probs = at::softmax(top_logits, -1);

  auto gate_out = at::silu(at::einsum("bse,nem->bsnm", {X, Gate}));
  auto up_out = at::einsum("bse,nem->bsnm", {X, Up});
  auto hidden = gate_out * up_out;
  auto expert_outputs = at::einsum("bsnm,nme->bsne", {hidden, Down});

  auto one_hot = at::one_hot(top_indices, NE).to(at::kFloat);
  auto expert_weights = (one_hot * router_probs.unsqueeze(-1)).sum(2);
  Out.copy_(at::einsum("bsne,bsn->bse", {expert_outputs, expert_weights}));
}
