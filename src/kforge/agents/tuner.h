#pragma once
// The tuner (no LLM): searches the tunables a kernel declares within a budget of trials. All
// variants are compiled in parallel first; then each is checked and timed alone, one at a time,
// so no measurement shares the machine with another. The fastest correct variant's values are
// written into the source, and that source is checked and timed again from scratch.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "kforge/agents/tunables.h"
#include "kforge/eval/evaluate.h"

namespace kforge::agents {

struct TuneTrial {
  TuneConfig config;
  eval::Verdict verdict = eval::Verdict::runtime_error;
  std::optional<double> median_ms;
  std::optional<double> speedup;
  std::string reason;
};

struct TuneResult {
  std::vector<Tunable> tunables;
  std::vector<TuneTrial> trials;
  std::optional<TuneConfig> best;         // none when no variant was correct
  std::string tuned_source;               // the source with the best values written in
  std::optional<eval::Evaluation> recheck;  // the tuned source, evaluated again
  std::string summary() const;            // one paragraph for histories and reports
  std::string table() const;              // every variant tried with its verdict, median and speedup, the chosen one marked
};

struct TuneOptions {
  int budget = 8;   // trials
  int jobs = 2;     // parallel compiles
  unsigned seed = 1;
  double time_budget_s = 0.5;  // paired timing per trial
};

// Returns an empty result (no tunables) when the source declares none; an Error when a
// declaration is malformed.
Result<TuneResult> tune(const eval::TaskContext& ctx, const std::string& source, const std::string& file_name, const eval::EvalOptions& base,
                        const TuneOptions& options, const std::function<void(std::string_view)>& progress = {});

}  // namespace kforge::agents
