#pragma once
// Kept results: every `kforge bench` run is one result set holding a row per task, and every
// `kforge eval` is a set of one row. A set says where and how it was measured (machine, commit,
// target, size, the settings a resume must match); a row says what was judged, its verdict, its
// speedup with the 95% interval and the partner it was paired with, and keeps the full JSON row.
// Rows are written as each task ends, so an interrupted bench keeps what it finished.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kforge/core/result.h"
#include "kforge/store/database.h"

namespace kforge::store {

struct ResultSet {
  std::int64_t id = 0;
  std::string command;            // bench | eval
  std::string state = "running";  // running | finished | interrupted
  std::string owner;              // the process writing it (process_owner.h)
  std::string suite;              // bench: the suite folder
  std::string task;               // eval: the task id
  std::string target, size, dtype;
  std::string impl;  // bench: --impl; eval: the kernel file
  std::string partner;
  std::string settings = "{}";  // JSON: what a resume must match
  // The machine.
  std::string hostname, cpu_model, isa;
  int threads = 0;
  std::string openblas_coretype;  // OPENBLAS_CORETYPE when it was set
  // The kforge that measured it.
  std::string kforge_version, git_sha;
  std::string created_at, updated_at;
};

// The state to show: interrupted for a set still marked running whose process is gone.
std::string effective_state(const ResultSet& set);

struct KeptResult {
  std::int64_t id = 0, set_id = 0;
  std::string task, size, dtype;
  std::string role;     // candidate | expert | baseline | reference
  std::string kernel;   // the file judged
  std::string partner;  // whom it was paired with
  std::string status;   // evaluated | skipped: … | error: …
  std::string verdict;  // "" when not evaluated
  bool busy = false;    // timed on a busy machine: no speedup figure
  std::optional<double> speedup, speedup_low, speedup_high, median_ms;
  std::string row = "{}";  // JSON: the full row
  std::string created_at;
};

// A set's rows at a glance (the figures `kforge bench` prints under its table).
struct SetSummary {
  int rows = 0, evaluated = 0, correct = 0, busy = 0;
  std::optional<double> geomean_speedup;  // over the correct rows with a (quiet) speedup
};
SetSummary summarize(const std::vector<KeptResult>& rows);

// Writes a new set (state running, owned by this process); returns its id.
Result<std::int64_t> insert_result_set(Database& db, const ResultSet& set);
// Marks a set finished or interrupted (or running again, owned by this process, on a resume).
Status set_result_state(Database& db, std::int64_t id, const std::string& state);
Result<std::optional<ResultSet>> find_result_set(Database& db, std::int64_t id);

struct ResultFilter {
  std::string command;  // bench | eval | "" (both)
  std::string task;     // sets holding a row of this task
  std::string target;
  int limit = 0;  // newest N (0: all)
};
Result<std::vector<ResultSet>> list_result_sets(Database& db, const ResultFilter& filter = {});

// Writes a row; a row of the same task and partner in the set is replaced (a busy row measured
// again).
Status put_result(Database& db, const KeptResult& row);
Result<std::vector<KeptResult>> results_of_set(Database& db, std::int64_t set_id);  // by task

// One task's rows across bench sets, oldest first: how its speedup moved over time.
struct HistoryPoint {
  ResultSet set;
  KeptResult result;
};
Result<std::vector<HistoryPoint>> task_history(Database& db, const std::string& task,
                                               const std::string& command = "bench");

}  // namespace kforge::store
