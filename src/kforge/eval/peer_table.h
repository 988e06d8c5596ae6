#pragma once
// One implementation of every task against every peer (bench --peers): per task, one evaluation
// per partner (libtorch, PyTorch eager, torch.compile in both modes, XLA), each paired and
// interleaved with the candidate on its own, so every ratio is a paired measurement. The fastest
// peer of a task is the one the candidate's speedup over is the smallest: ratios against one
// candidate, never absolute times of two runs. A peer that failed (wrong, crashed) is an error
// cell and never the fastest; a busy cell's ratio is no result and decides nothing.

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kforge/eval/suite_run.h"

namespace kforge::eval {

// Every partner bench --peers measures, in table order; "torch" is the eager reference of fast_p.
inline constexpr const char* kAllPeers[] = {"libtorch", "torch", "torch-compile",
                                            "torch-compile-max", "xla"};

struct PeerRow {
  std::string id;
  std::vector<SuiteTaskResult> cells;  // one per peer, in the order of the peers measured
  std::optional<std::size_t> fastest;  // index of the fastest peer, when one was judged quietly
  // The candidate's speedup over the fastest peer (that cell's), when there is one.
  const SpeedupStats* over_fastest() const;
};

// A cell's ratio counts: the candidate and the peer both correct, timed, not busy.
bool judged(const SuiteTaskResult& cell);
// The cell failed through its peer (the peer was wrong, crashed, or has no port).
bool peer_failed(const SuiteTaskResult& cell);

void find_fastest(PeerRow& row);

struct PeerSummary {
  int tasks = 0, with_fastest = 0, busy_cells = 0, peer_errors = 0;
  // Shares of the tasks whose fastest peer was judged (the candidate correct and faster by more
  // than p); eager: the same over the tasks whose torch cell was judged. Absent when none was.
  std::optional<double> fast_1_fastest, fast_1_5_fastest, fast_1_eager, fast_1_5_eager;
  std::optional<double> geomean_over_fastest;
};

PeerSummary summarize_peers(const std::vector<PeerRow>& rows,
                            const std::vector<std::string>& peers);

nlohmann::json to_json(const PeerRow& row, const std::vector<std::string>& peers);
nlohmann::json to_json(const PeerSummary& s);

}  // namespace kforge::eval
