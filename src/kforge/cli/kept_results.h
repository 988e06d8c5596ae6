#pragma once
// What `kforge bench` and `kforge eval` keep in the store (store/results.h): a result set that
// says where and with which kforge it was measured, and a row per finished task, written as each
// task ends. Keeping is a side record: a store that cannot be written costs a warning on stderr,
// never the evaluation.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "kforge/eval/machine.h"
#include "kforge/eval/result_row.h"
#include "kforge/eval/suite_run.h"
#include "kforge/store/database.h"
#include "kforge/store/results.h"

namespace kforge::cli {

// A new set of `command` (bench | eval) measured on `machine` with `threads`, by this kforge.
store::ResultSet new_result_set(const std::string& command, const eval::MachineProfile& machine,
                                int threads);

// What a row is about beyond its evaluation.
struct RowFacts {
  std::string role;     // candidate | expert | baseline | reference
  std::string kernel;   // the file judged
  std::string partner;  // whom it was paired with when the evaluation does not say
  std::string dtype;
  std::string requested_size;  // "" = the task's default
};

// Whether a task's result is a row to keep: it ended (a task Ctrl-C left unrun or stopped is not,
// so a resume runs it).
bool finished(const eval::SuiteTaskResult& r);

// The row of a task: typed columns, and as JSON {"row": the flat result row, "task": the task
// entry of bench --json}.
store::KeptResult kept_row(std::int64_t set_id, const eval::RunStamp& stamp,
                           const eval::SuiteTaskResult& r, const RowFacts& facts);

// A kept row back as the task result bench prints (the evaluation read back from its JSON).
eval::SuiteTaskResult restored(const store::KeptResult& row);

// The store, opened for keeping one set's rows.
class ResultKeeper {
 public:
  // Opens the store under the state folder and writes `set` as a new, running set; on failure
  // warns and keeps nothing (id() is empty).
  static ResultKeeper start(const store::ResultSet& set);
  // Goes on with an existing set (a resume), marking it running again.
  static ResultKeeper resume(std::unique_ptr<store::Database> db, std::int64_t id);

  std::optional<std::int64_t> id() const { return id_; }
  void keep(const store::KeptResult& row);  // row.set_id is set here
  // Marks the set finished, or interrupted when Ctrl-C stopped it (then a resume goes on).
  void finish(bool interrupted);

 private:
  std::unique_ptr<store::Database> db_;
  std::optional<std::int64_t> id_;
};

}  // namespace kforge::cli
