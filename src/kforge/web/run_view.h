#pragma once
// A run as its page shows it: the run, and every node with its plan, kernel, diff to its parent,
// evaluation (verdict, reason, times, speedup, roofline, side-by-side decisions with their
// intervals), profile and diagnosis; and the session's model calls with tokens and cost.

#include <filesystem>

#include <nlohmann/json.hpp>

#include "kforge/core/result.h"
#include "kforge/store/database.h"

namespace kforge::web {

// An error when the run is unknown or the store cannot be read. `scratch` holds diff(1)'s files.
Result<nlohmann::json> run_view(store::Database& db, const std::string& run_id,
                                const std::filesystem::path& scratch);

// A fingerprint of the run's rows: it changes whenever the run or one of its nodes is written
// (the live graph's server-sent events poll it).
Result<std::string> run_fingerprint(store::Database& db, const std::string& run_id);

// The state a run ended in ("finished", "stopped", "interrupted", "failed"; a run marked running
// whose process is gone counts as interrupted); "" while it runs or before its row exists.
std::string ended_state(store::Database& db, const std::string& run_id);

}  // namespace kforge::web
