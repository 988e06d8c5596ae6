#pragma once
// One line per run of the store (auto, search, hitl): its state, node count, best speedup, tokens
// and cost. `kforge sessions` prints it as a table and `kforge serve` as a page; both read it here.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kforge/core/result.h"
#include "kforge/store/database.h"
#include "kforge/store/runs.h"

namespace kforge::modes {

struct SessionSummary {
  store::RunRecord run;
  std::string state;  // the effective state's name (a dead process's run reads interrupted)
  std::size_t nodes = 0;
  std::optional<int> best_node;  // its number within the run (the run row holds its store id)
  std::optional<double> best_speedup;
  std::int64_t tokens = 0;
  bool tokens_estimated = false;
  double cost_usd = 0;

  nlohmann::json to_json() const;  // the shape `kforge sessions --json` prints
};

// Newest first. `state_dir` holds the state file of a hitl session an older kforge saved, whose
// versions are not nodes yet.
Result<std::vector<SessionSummary>> summarize_sessions(store::Database& db,
                                                       const std::filesystem::path& state_dir);

}  // namespace kforge::modes
