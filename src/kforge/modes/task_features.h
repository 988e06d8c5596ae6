#pragma once
// What a task offers a strategy to work on, in words the strategy catalogue's `requires` can name:
// the task's tags, and facts derived from its spec and notes that its tags do not say. A strategy
// is offered only where its preconditions hold (strategy_catalogue.h): skipping masked work needs
// work that is masked, sharing KV heads needs fewer KV heads than query heads.

#include <string>
#include <vector>

#include "kforge/core/task_spec.h"

namespace kforge::modes {

// Some of the work the baseline does may be skipped: a causal or other mask, ragged or padded
// lengths, paged caches, routing (tags causal, ragged, paged, routing, or notes that speak of a
// mask or causality). A uniform batched GEMM has none, nor has a convolution's padded border.
inline constexpr const char* kMaskedWork = "masked-work";
// Query heads share KV heads (tag gqa, or sizes Hkv < Hq at the task's default size).
inline constexpr const char* kSharedKvHeads = "shared-kv-heads";

// The task's tags followed by the derived features that hold for it (kMaskedWork,
// kSharedKvHeads).
std::vector<std::string> task_features(const core::TaskSpec& spec);

}  // namespace kforge::modes
