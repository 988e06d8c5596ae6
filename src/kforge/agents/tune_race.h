#pragma once
// The tuner's race: which of a kernel's variants, if any, beats its declared defaults, found with
// side-by-side runs spent where they can change the decision. Every run is one paired comparison
// of a variant against the leader (the defaults, until a variant beats them), read by its 95%
// interval (eval/paired_decision.h), so the winner is still decided by a paired interval and a
// tie keeps the leader.
//
// Rounds, each with twice the timing of the last: round 1 times every variant briefly; a variant
// whose interval lies wholly below 1 is dropped there (clearly slower), one wholly above takes the
// lead at once (later variants race the new leader). The ties go on, the better half of them by
// their median (successive halving; two at least), and a variant still tied after `max_ties` runs
// is within noise: dropped, the leader stays. All of it within `max_runs` side-by-side runs per
// iteration: in one measured auto run 7 variants took 14 runs of about a minute each (every tie
// timed twice in full), 1165 s of 1911 s, and most of them could no longer change the decision.

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kforge/agents/tunables.h"
#include "kforge/eval/paired_decision.h"

namespace kforge::agents {

struct TuneTrial {
  TuneConfig config;
  TuneConfig against;  // the leader it was timed against
  eval::Verdict verdict = eval::Verdict::runtime_error;
  std::optional<eval::SpeedupStats> ratio;  // the leader's time over this variant's, per pair
  eval::Winner winner = eval::Winner::undecided;
  int round = 1;        // the race's round (1: the short first look at every variant)
  double budget_s = 0;  // the paired timing this run was given
  bool busy = false;
  std::string reason;   // why it failed or was not decided
  std::string outcome;  // what the race did with the variant after this run
};

struct RaceOptions {
  int max_runs = 10;             // side-by-side runs in all (the --tune-rounds setting)
  double first_budget_s = 0.25;  // paired timing of round 1; each later round doubles it
  int max_ties = 2;              // runs a variant may tie before it counts as within noise
  std::function<void(int round)> round_starts;  // before each round's first run (optional)
};

struct RaceResult {
  std::vector<TuneTrial> trials;    // every run, in order
  TuneConfig leader;                // the defaults unless a variant beat them (and then its rivals)
  std::vector<TuneConfig> unraced;  // variants the budget left untimed
};

// One side-by-side run of `variant` against `leader` with `budget_s` of paired timing.
using PairedJudge = std::function<eval::PairedDecision(const TuneConfig& variant,
                                                       const TuneConfig& leader, double budget_s)>;

RaceResult race(const TuneConfig& defaults, const std::vector<TuneConfig>& variants,
                const PairedJudge& judge, const RaceOptions& options,
                const std::function<void(std::string_view)>& progress = {});

}  // namespace kforge::agents
