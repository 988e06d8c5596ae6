#pragma once
// Two saved `kforge bench --json` results side by side, task by task: the ratio of B's speedup to
// A's (each measured side by side with its own baseline, so machine drift between the runs
// cancels) and whether their 95% intervals overlap (then the difference is not shown to be real).
// `kforge compare` prints it as a table; `kforge serve`'s suite page plots it.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kforge/core/result.h"

namespace kforge::eval {

struct BenchTaskResult {
  std::string verdict;                       // "" when the task was not evaluated
  std::optional<double> speedup, low, high;  // none when timed busy: its reading is no result
  bool busy = false;                         // timed on a busy machine
};
using BenchResults = std::map<std::string, BenchTaskResult>;  // task id → result

// From bench --json (or a single eval --json evaluation); `name` says which in an error.
Result<BenchResults> parse_bench_results(const nlohmann::json& j, const std::string& name);

// {"tasks": [{task, a, b, a_verdict, b_verdict, a_busy, b_busy, ratio, intervals_overlap,
// outcome}], "summary": {compared, b_faster, b_slower, within_noise, busy, geomean_ratio}}. A task
// correct in both but timed busy on either side is not compared ("not compared: B timed busy").
nlohmann::json compare_bench(const BenchResults& a, const BenchResults& b);

// When `kforge compare` exits 1: `regression` (default) fires on a task correct in A and not in B
// and on a slowdown shown to be real (the intervals apart); `any_worse` also on a slowdown within
// noise and on a task correct in A that B lacks; `never` does not fire.
enum class FailRule { regression, any_worse, never };

// The rule named on the command line ("regression", "any-worse", "never"); nullopt otherwise.
std::optional<FailRule> parse_fail_rule(const std::string& name);

// The tasks of compare_bench's result that fire `rule`, each as "task: why" ("t: correct →
// incorrect", "t: B/A 0.50x, intervals apart"). A slowdown counts only when B/A is below
// 1 − threshold (0.05: slowdowns under 5% are forgiven); a changed verdict always counts.
std::vector<std::string> rule_failures(const nlohmann::json& comparison, FailRule rule,
                                       double threshold = 0);

// Each task's speedup with its interval: {"tasks": [{task, verdict, busy, speedup, low, high}]}.
nlohmann::json bench_speedups(const BenchResults& r);

}  // namespace kforge::eval
