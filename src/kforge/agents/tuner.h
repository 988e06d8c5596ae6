#pragma once
// The tuner (no LLM): searches the tunables a kernel declares within a budget of trials. All
// variants are compiled in parallel first. Then each is timed side by side, in one run, against
// the setting that leads so far, starting from the declared defaults (see eval/paired_decision.h):
// a variant takes the lead only when its whole 95% interval lies above 1; a tie is measured once
// more with twice the budget and, if still a tie, the leader stays (the order is not known). One
// trial per variant timed alone once picked UNROLL=2 at 20.01 ms over 0.0049 ms on a loaded
// machine; side by side, load slows both alike. The winner's values are written into the source,
// and that source is checked and timed again from scratch. Every variant is compiled by the bound
// target's compiler and judged by its judge: a CUDA kernel's trials run on the device.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "kforge/agents/tunables.h"
#include "kforge/eval/evaluate.h"
#include "kforge/eval/paired_decision.h"
#include "kforge/target/bound_target.h"

namespace kforge::agents {

struct TuneTrial {
  TuneConfig config;
  TuneConfig against;  // the leader it was timed against
  eval::Verdict verdict = eval::Verdict::runtime_error;
  std::optional<eval::SpeedupStats> ratio;  // the leader's time over this variant's, per pair
  eval::Winner winner = eval::Winner::undecided;
  int rounds = 0;  // side-by-side runs (2 when the first was a tie)
  bool busy = false;
  std::string reason;  // why it failed or was not decided
};

struct TuneResult {
  std::vector<Tunable> tunables;
  std::vector<TuneTrial> trials;
  std::optional<TuneConfig> best;  // the variant that beat the defaults; none when they stand
  std::string tuned_source;        // the source with the best values written in
  std::optional<eval::Evaluation> recheck;  // the tuned source, evaluated again
  std::string summary() const;              // one paragraph for histories and reports
  std::string table() const;  // every trial, as a markdown table (for the model and report)
};

struct TuneOptions {
  int budget = 8;  // variants (besides the defaults)
  int jobs = 2;    // parallel compiles
  unsigned seed = 1;
  double time_budget_s = 0.5;  // paired timing per side-by-side run
};

// Returns an empty result (no tunables) when the source declares none; an Error when a
// declaration is malformed, or when the target's kernels cannot be tuned.
Result<TuneResult> tune(const target::BoundTarget& target, const eval::TaskContext& ctx,
                        const std::string& source, const eval::EvalOptions& base,
                        const TuneOptions& options,
                        const std::function<void(std::string_view)>& progress = {});

}  // namespace kforge::agents
