#pragma once
// Evaluating one implementation of every task in a suite: the baselines, the experts, the
// references, or a folder of candidate kernels named <id>.cpp (how agents' results and other
// people's kernels are scored). Summaries follow the usual metrics: fast_p is the share of tasks
// that are correct and more than p times faster than the baseline; the geometric-mean speedup is
// over the correct tasks.

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kforge/eval/evaluate.h"

namespace kforge::eval {

struct SuiteRunOptions {
  std::filesystem::path suite;     // folder of task folders
  std::vector<std::string> tasks;  // empty: all
  std::string impl = "baseline";   // baseline | expert | reference | a folder of <id>.cpp
  std::string size;                // "" = each task's default
  EvalOptions eval;                // threads, budget, machine, …
  std::filesystem::path dump_dir;  // per task: dump_dir/<id>
  // Tasks evaluated at once. Worth more than 1 only with a cluster executor (eval.executor): on
  // one machine timings take turns anyway.
  int parallel = 1;
  // The target's view of a task (empty: the cpu target's): its expert and baseline files, the
  // extension of a folder's kernels, and the judge.
  std::function<std::filesystem::path(const core::TaskSpec&)> expert_path, baseline_path;
  std::string kernel_extension = ".cpp";
  std::function<Evaluation(const TaskContext&, const std::string& source,
                           const std::string& file_name, const EvalOptions&)>
      judge;
};

struct SuiteTaskResult {
  std::string id;
  std::string
      status;  // "evaluated", "skipped: no expert.cpp", "error: …" (task could not be loaded)
  std::optional<Evaluation> evaluation;
  int remeasured = 0;  // times it was measured again because the machine was busy
  bool busy() const { return evaluation && evaluation->machine_busy; }
};

struct SuiteSummary {
  int tasks = 0, evaluated = 0, correct = 0;
  // Shares of the evaluated tasks and the geometric mean over the correct ones with a speedup;
  // absent (null in JSON) when there is nothing to take them over, so "none" never reads as 0.
  // A busy row's speedup is no result: busy rows are left out of the shares and the mean (both
  // sides of each share), and counted here.
  std::optional<double> fast_1, fast_1_5, geomean_speedup;
  int busy = 0;
  double seconds = 0;
};

// Checks what the options select before anything runs: every id in `tasks` names a task folder
// of the suite, and a `size` is declared by at least one selected task. Errors name the bad
// value and suggest the closest known one.
Status check_selection(const SuiteRunOptions& options);

// Runs the suite; `on_task` is called after each task (for progress lines).
std::vector<SuiteTaskResult> run_suite(
    const SuiteRunOptions& options, toolchain::Compiler& compiler,
    const std::function<void(const SuiteTaskResult&, int index, int total)>& on_task);
// Measures busy rows again, at most `retries` times each (evaluate() waits for quiet first), with
// `remeasure` (run_task in the real thing). A new measurement replaces the row, unless the task
// could not be evaluated at all then (the busy measurement is kept: nothing is lost); a row still
// busy after its retries stays busy, marked so. `on_retry` hears of each new measurement.
void remeasure_busy(
    std::vector<SuiteTaskResult>& results, int retries,
    const std::function<SuiteTaskResult(const SuiteTaskResult&)>& remeasure,
    const std::function<void(const SuiteTaskResult&, int attempt)>& on_retry = nullptr);
// One task of the suite again (by its id), as run_suite ran it.
SuiteTaskResult rerun_task(const SuiteRunOptions& options, toolchain::Compiler& compiler,
                           const std::string& id);
SuiteSummary summarize_suite(const std::vector<SuiteTaskResult>& results, double seconds);

nlohmann::json to_json(const SuiteTaskResult& r);
nlohmann::json to_json(const SuiteSummary& s);

}  // namespace kforge::eval
