#pragma once
// The one writer of run and node rows for every mode (auto, hitl, search): a run is started,
// its nodes added and updated as each step ends, its best and final state recorded. Writes are
// serialized, so a search's expansions may record from several threads through one ledger.
// Errors are returned to the caller, which reports them: a failed write loses only what it wrote.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "kforge/core/result.h"
#include "kforge/eval/evaluation.h"
#include "kforge/store/runs.h"

namespace kforge::modes {

class RunLedger {
 public:
  static Result<std::unique_ptr<RunLedger>> open(const std::filesystem::path& state_dir);
  explicit RunLedger(std::unique_ptr<store::Database> db);

  // The store itself, for what is not a run or a node (a session's model usage).
  store::Database& db() { return *db_; }

  // A new run, owned by this process while it runs.
  Status start_run(const store::RunRecord& run);
  // Reads the run, lets `change` edit it and writes it back (state, best, stop reason, search
  // state).
  Status update_run(const std::string& run_id,
                    const std::function<void(store::RunRecord&)>& change);
  Status set_best(const std::string& run_id, std::optional<std::int64_t> best);
  Result<std::optional<store::RunRecord>> run(const std::string& run_id);

  Result<std::int64_t> add_node(const store::NodeRecord& node);  // returns its id
  Status update_node(const store::NodeRecord& node);
  Result<std::vector<store::NodeRecord>> nodes(const std::string& run_id);  // with their numbers
  // The node's number within its run (store::node_number): what a user is shown.
  Result<int> number_of(const std::string& run_id, std::int64_t id);
  // Nodes a killed process left running are marked interrupted (a resume expands them again);
  // returns how many.
  Result<int> mark_interrupted(const std::string& run_id);

 private:
  std::unique_ptr<store::Database> db_;
  std::mutex mu_;
};

// What an evaluation says of a node: verdict, reason, times, speedup, roofline and its reason,
// profile and timing window. The one place an Evaluation becomes node columns.
void record_evaluation(store::NodeRecord& node, const eval::Evaluation& e);

// The node's verdict as eval knows it (absent when not evaluated or unknown to this kforge).
std::optional<eval::Verdict> verdict_of(const store::NodeRecord& node);

// Correct, with a time: the only nodes a search may rank or keep.
bool is_correct(const store::NodeRecord& node);

}  // namespace kforge::modes
