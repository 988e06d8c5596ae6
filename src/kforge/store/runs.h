#pragma once
// Runs (auto, search, hitl) and their nodes: every candidate kernel a run produced, with the
// strategy that made it from its parent and what the harness said of it. An auto run is a chain
// of nodes; a search run is a graph. Every change is written as it happens, so a killed run
// loses only the work in flight and can be resumed from here.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kforge/core/result.h"
#include "kforge/store/database.h"

namespace kforge::store {

struct RunRecord {
  std::string id;  // the session id
  std::string mode, task, size;
  std::string state = "running";
  std::string options = "{}";
  std::string search_state = "{}";
  std::optional<std::int64_t> best_node;
  std::string stop_reason;
  std::string created_at, updated_at;
  std::string owner;  // the process that last wrote it as running (store/process_owner.h)
};

// The state to show: "interrupted" for a run still marked running whose process is gone.
std::string effective_state(const RunRecord& run);

struct NodeRecord {
  std::int64_t id = 0;
  std::string run_id;
  std::optional<std::int64_t> parent_id;
  int depth = 0, iteration = 0;
  std::string strategy, plan, source, source_hash;
  std::string state = "pending";
  std::optional<std::string> verdict;
  std::string reason;
  std::optional<double> median_ms, baseline_ms, speedup, roofline;
  std::string profile, diagnosis;
  std::optional<bool> needs_improvement;
  std::int64_t tokens_in = 0, tokens_out = 0;
  double cost_usd = 0;
  std::string extra = "{}";
  std::string created_at;
  std::optional<std::string> finished_at;
};

Status insert_run(Database& db, const RunRecord& run);
// Writes state, search_state, best_node, stop_reason and updated_at; a running run is owned by the
// calling process from then on.
Status update_run(Database& db, const RunRecord& run);
Result<std::optional<RunRecord>> find_run(Database& db, const std::string& id);
Result<std::vector<RunRecord>> list_runs(Database& db);  // newest first

Result<std::int64_t> insert_node(Database& db, const NodeRecord& node);  // returns the new id
Status update_node(Database& db, const NodeRecord& node);                // every column but run_id and created_at
Result<std::vector<NodeRecord>> nodes_of_run(Database& db, const std::string& run_id);  // by id

std::string now_iso8601();

}  // namespace kforge::store
