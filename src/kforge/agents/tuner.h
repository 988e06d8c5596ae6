#pragma once
// The tuner (no LLM): searches the tunables a kernel declares. All variants are compiled in
// parallel first (the judge times nothing meanwhile: on two cores a compile beside a timing would
// bias it), then raced side by side against the declared defaults within a budget of runs
// (tune_race.h): a variant takes the lead only when its whole 95% interval lies above 1, a tie
// keeps the leader. One trial per variant timed alone once picked UNROLL=2 at 20.01 ms over
// 0.0049 ms on a loaded machine; side by side, load slows both alike. The winner's values are
// written into the source, and that source is checked and timed again from scratch. Every variant
// is compiled by the bound target's compiler and judged by its judge: a CUDA kernel's trials run
// on the device.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "kforge/agents/tunables.h"
#include "kforge/agents/tune_race.h"
#include "kforge/eval/evaluate.h"
#include "kforge/eval/paired_decision.h"
#include "kforge/targets/bound_target.h"

namespace kforge::agents {

struct TuneResult {
  std::vector<Tunable> tunables;
  std::vector<TuneTrial> trials;    // every side-by-side run, in order
  std::vector<TuneConfig> unraced;  // variants the budget of runs left untimed
  int max_runs = 0;                 // that budget
  std::optional<TuneConfig> best;   // the variant that beat the defaults; none when they stand
  std::string tuned_source;         // the source with the best values written in
  std::optional<eval::Evaluation> recheck;  // the tuned source, evaluated again
  std::string summary() const;              // one paragraph for histories and reports
  std::string table() const;  // every trial, as a markdown table (for the model and report)
};

struct TuneOptions {
  int budget = 8;  // variants (besides the defaults)
  // Side-by-side runs per tuning (--tune-rounds): 7 variants take 7 short runs, then the better
  // half of those that tied (at most 4) one more each with twice the timing, the budget allowing.
  int rounds = 10;
  int jobs = 2;  // parallel compiles
  unsigned seed = 1;
  double time_budget_s = 0.5;  // paired timing of a round-2 run; round 1 gets half
};

// Returns an empty result (no tunables) when the source declares none; an Error when a
// declaration is malformed, or when the target's kernels cannot be tuned.
Result<TuneResult> tune(const target::BoundTarget& target, const eval::TaskContext& ctx,
                        const std::string& source, const eval::EvalOptions& base,
                        const TuneOptions& options,
                        const std::function<void(std::string_view)>& progress = {});

}  // namespace kforge::agents
