#pragma once
// Which of two correct kernels is faster, decided the only way a shared machine allows: both
// timed side by side in one run, pair by pair (the judge's --against), and the 95% interval of the
// per-pair ratio read. Absolute medians from different runs are never compared: on a loaded
// machine a task's baseline moved 152 → 246 → 64 → 373 ms between iterations, and a kernel the
// tuner measured at 13.7 ms read 71.3 ms a minute later.
//
// A challenger wins only when the whole interval lies above 1; the incumbent stays on a tie (the
// interval holds 1) and when nothing could be decided (the challenger failed its re-check).
//
// A busy machine (see decide_paired for why this is honest): evaluate() first waits a bounded
// time for quiet. A comparison still timed busy is timed once more with twice the budget; it
// decides only when both runs' intervals lie on the same side of 1 (or the second run was quiet
// and its interval decides), and says it was decided busy. Oversubscribed OpenMP (more threads
// than CPUs) decides nothing: the ratio then measures the scheduler, not the kernels.

#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "kforge/eval/evaluate.h"

namespace kforge::eval {

enum class Winner { challenger, incumbent, tie, undecided };
std::string_view winner_name(Winner w);

struct PairedDecision {
  Winner winner = Winner::undecided;
  std::string against;  // the incumbent, as a reader knows it ("iteration 2", "node 7")
  std::optional<SpeedupStats>
      ratio;           // the incumbent's time over the challenger's, per pair (the last run's)
  bool busy = false;   // the last run was timed busy
  std::string reason;  // why it is undecided
  std::optional<SpeedupStats>
      first_ratio;            // the first run's, when it was timed busy and the comparison again
  bool decided_busy = false;  // decided by two busy runs that agree
  std::optional<Evaluation> evaluation;  // the side-by-side run

  bool challenger_won() const { return winner == Winner::challenger; }
  std::string describe() const;  // one line, for progress, report.md and the model
  nlohmann::json to_json() const;
};

// The interval read: above 1 the challenger, below 1 the incumbent, else a tie.
Winner read_interval(const SpeedupStats& ratio);
// Two busy runs of one comparison: a side wins only when both intervals say so; else a tie.
Winner read_busy_runs(const SpeedupStats& first, const SpeedupStats& second);

// Times `challenger` against `incumbent` side by side (both compiled and checked first) with the
// options of `base` (threads, budget, machine lock), and reads the result.
PairedDecision decide_paired(const TaskContext& ctx, const std::string& challenger,
                             const std::string& incumbent, const std::string& incumbent_label,
                             EvalOptions base);
// The same decision with another target's judge: `run` evaluates the challenger with the options
// it is given (the incumbent is their against_source), as that target's evaluate does.
using PairedRun = std::function<Evaluation(const std::string& challenger, const EvalOptions&)>;
PairedDecision decide_paired(const PairedRun& run, const std::string& challenger,
                             const std::string& incumbent, const std::string& incumbent_label,
                             EvalOptions base);

}  // namespace kforge::eval
