// Linear + cross-entropy as PyTorch eager runs it: the ops of JAXBench's workload, one by one
// (the one-hot product included, as the original writes it), stopping at the per-token losses.
#include <ATen/ATen.h>
#include <kforge/torch_view.h>

#include "kforge_task.h"

extern "C" void kernel(const float* hidden, const float* weight, const std::int32_t* labels, float* loss) {
  using namespace task;
  auto Hidden = kforge_torch::view(hidden, {T, H});
  auto Weight = kforge_torch::view(weight, {H, V});
  auto Labels = kforge_torch::view(labels, {T});
  auto Loss = kforge_torch::view(loss, {T});
  auto logits = at::matmul(Hidden, Weight);
  auto log_probs = at::log_softmax(logits, -1);
  auto one_hot = at::one_hot(Labels.to(at::kLong), V);  // at::one_hot takes int64 indices
  at::neg_out(Loss, (one_hot * log_probs).sum(-1));
}
