#pragma once
// Runs (auto, search, hitl) and their nodes: every candidate kernel a run produced, with the
// strategy that made it from its parent and what the harness said of it. An auto run is a chain
// of nodes; a search run is a graph. Every change is written as it happens, so a killed run
// loses only the work in flight and can be resumed from here.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kforge/core/result.h"
#include "kforge/store/database.h"

namespace kforge::store {

enum class RunState { running, finished, stopped, interrupted, failed };
enum class NodeState { pending, running, done, failed, interrupted };
std::string_view run_state_name(RunState s);
std::string_view node_state_name(NodeState s);
std::optional<RunState> parse_run_state(std::string_view name);
std::optional<NodeState> parse_node_state(std::string_view name);

struct RunRecord {
  std::string id;  // the session id
  std::string mode, task, size;
  RunState state = RunState::running;
  std::string options = "{}";
  std::string search_state = "{}";
  std::optional<std::int64_t> best_node;
  std::string stop_reason;
  std::string created_at, updated_at;
  std::string owner;  // the process that last wrote it as running (store/process_owner.h)
};

// The state to show: interrupted for a run still marked running whose process is gone.
RunState effective_state(const RunRecord& run);

struct NodeRecord {
  // The id is the store's, unique across runs: parent, partner and best references are ids. The
  // number is the node's within its run (node_number below): what a user sees and types. 0 for a
  // record not yet written, or one built by hand.
  std::int64_t id = 0;
  int number = 0;
  std::string run_id;
  std::optional<std::int64_t> parent_id;
  int depth = 0, iteration = 0;
  std::string strategy, plan, source, source_hash;
  NodeState state = NodeState::pending;
  std::optional<std::string> verdict;  // eval's verdict name (the store sits below eval)
  std::string reason;
  std::optional<double> median_ms, baseline_ms, speedup, roofline;
  std::string roofline_reason;  // why the roofline reads above 100% ("" when it does not)
  std::string profile, diagnosis;
  std::optional<bool> needs_improvement;
  std::int64_t tokens_in = 0, tokens_out = 0;
  double cost_usd = 0;
  // A search's data ("" and absent for an auto run's iterations).
  std::string expansion;    // the key of the expansion that made the node (stable across resumes)
  std::string strategy_id;  // a catalogue id, "crossover" or "root"
  std::optional<std::int64_t> partner;  // a crossover's second parent
  bool expansion_result = false;        // the node its expansion finished with: a resume replays it
  std::optional<double> vs_parent_ratio;  // the parent's time over this node's, side by side
  std::string vs_parent, vs_best;         // JSON of those side-by-side decisions ("" when none)
  std::string decision;  // JSON: an auto iteration against the best so far ("" when none)
  std::optional<double> timing_start, timing_end;  // CLOCK_MONOTONIC seconds of the measured window
  std::string extra =
      "{}";  // JSON for humans only (fixes, tuning, seconds per phase): nothing reads it back
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
Status update_node(Database& db, const NodeRecord& node);  // every column but run_id and created_at
// By id, each with its number.
Result<std::vector<NodeRecord>> nodes_of_run(Database& db, const std::string& run_id);

// A node's number within its run: 1 for the run's first node, then in the order its nodes were
// written (by id). Nodes are only ever added to a run, never moved or deleted, so a number never
// changes once given. Absent when the run has no such node.
Result<std::optional<int>> node_number(Database& db, const std::string& run_id, std::int64_t id);
// The id of the run's node with that number (what `kforge export RUN N` takes).
Result<std::optional<std::int64_t>> node_id(Database& db, const std::string& run_id, int number);

// The numbers of one run's nodes by id, from records that carry them (nodes_of_run's): for the
// ids a node or a run refers to (parent, partner, best) as a user reads them.
class NodeNumbers {
 public:
  explicit NodeNumbers(const std::vector<NodeRecord>& nodes);
  // Absent for no id, or for an id that is not one of these nodes.
  std::optional<int> of(std::optional<std::int64_t> id) const;

 private:
  std::map<std::int64_t, int> by_id_;
};

std::string now_iso8601();

}  // namespace kforge::store
