#pragma once
// The best kernel of a run against every peer a user would pick instead (libtorch, PyTorch eager,
// torch.compile in both modes, XLA), for report.md: each peer paired with the kernel in a run of
// its own, so every ratio is side by side, never two runs' absolute times. A peer that fails or
// cannot run is a row that says so; a busy row's ratio is shown as no result.

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "kforge/eval/evaluate.h"

namespace kforge::modes {

struct PeerComparison {
  std::string peer;  // "libtorch", "torch", "torch-compile", "torch-compile-max", "xla"
  eval::Evaluation evaluation;
};

// `base` with its partner replaced by each of `peers` in turn (threads, budget, machine and lock
// kept). `say` hears one line per peer. Ctrl-C (base.cancel) ends it: the peers not yet timed get
// no row, the one in flight ends as interrupted.
std::vector<PeerComparison> compare_with_peers(const eval::TaskContext& ctx,
                                               const std::string& source,
                                               const eval::EvalOptions& base,
                                               const std::vector<std::string>& peers,
                                               const std::function<void(std::string_view)>& say);

// The report.md section: a table with each peer's time, the kernel's, and the speedup with its
// 95% interval (busy rows and failed peers said as such).
std::string peers_section(const std::vector<PeerComparison>& rows, int threads);
nlohmann::json to_json(const std::vector<PeerComparison>& rows);

}  // namespace kforge::modes
