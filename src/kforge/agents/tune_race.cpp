// Rounds of side-by-side runs: drop the clearly slower, halve the ties, double the timing.
#include "kforge/agents/tune_race.h"

#include <fmt/format.h>

#include <algorithm>

namespace kforge::agents {
namespace {

// A variant still in the race.
struct Runner {
  TuneConfig config;
  int ties = 0;
  double median = 0;      // its last run's ratio: how the ties are ranked for the next round
  std::size_t trial = 0;  // its last run in RaceResult::trials
};

// One run of `v` against the leader, recorded; the runner goes on only on a tie below the bound.
bool run_one(const PairedJudge& judge, const RaceOptions& o, int round, double budget_s, Runner& v,
             RaceResult& r) {
  auto d = judge(v.config, r.leader, budget_s);
  TuneTrial t{v.config, r.leader};
  t.verdict = d.evaluation ? d.evaluation->verdict : eval::Verdict::runtime_error;
  t.ratio = d.ratio;
  t.winner = d.winner;
  t.round = round;
  t.budget_s = budget_s;
  t.busy = d.busy;
  t.reason = d.reason;
  bool goes_on = false;
  switch (d.winner) {
    case eval::Winner::challenger:
      t.outcome = "took the lead";
      r.leader = v.config;
      break;
    case eval::Winner::incumbent:
      t.outcome = "slower: dropped";
      break;
    case eval::Winner::tie:
      ++v.ties;
      v.median = d.ratio ? d.ratio->median : 0;
      goes_on = v.ties < o.max_ties;
      t.outcome = goes_on
                      ? "tie: raced again"
                      : fmt::format("tie after {} runs, within noise: the leader stays", v.ties);
      break;
    case eval::Winner::undecided:
      t.outcome = "not decided: dropped";
      break;
  }
  v.trial = r.trials.size();
  r.trials.push_back(std::move(t));
  return goes_on;
}

// Successive halving: of the ties going on, the better half by median (at least two) races on.
void halve(std::vector<Runner>& next, RaceResult& r) {
  if (next.size() <= 2) return;
  std::stable_sort(next.begin(), next.end(),
                   [](const Runner& a, const Runner& b) { return a.median > b.median; });
  const std::size_t keep = (next.size() + 1) / 2;
  for (std::size_t i = keep; i < next.size(); ++i)
    r.trials[next[i].trial].outcome = "tie, in the slower half of the ties: dropped";
  next.resize(keep);
}

}  // namespace

RaceResult race(const TuneConfig& defaults, const std::vector<TuneConfig>& variants,
                const PairedJudge& judge, const RaceOptions& o,
                const std::function<void(std::string_view)>& progress) {
  RaceResult r;
  r.leader = defaults;
  std::vector<Runner> alive;
  alive.reserve(variants.size());
  for (const auto& v : variants) alive.push_back({v});
  int runs = 0;
  double budget_s = o.first_budget_s;
  for (int round = 1; !alive.empty() && runs < o.max_runs; ++round, budget_s *= 2) {
    if (o.round_starts) o.round_starts(round);
    std::vector<Runner> next;
    std::size_t i = 0;
    for (; i < alive.size() && runs < o.max_runs; ++i, ++runs) {
      if (progress)
        progress(fmt::format(
            "tuning: round {} ({:.2g} s each): {} against {} side by side (run "
            "{} of at most {})",
            round, budget_s, describe(alive[i].config), describe(r.leader), runs + 1, o.max_runs));
      if (run_one(judge, o, round, budget_s, alive[i], r)) next.push_back(alive[i]);
    }
    // The budget ran out inside this round: the rest keep their last tie, or were never timed.
    for (; i < alive.size(); ++i) {
      if (round == 1)
        r.unraced.push_back(alive[i].config);
      else
        next.push_back(alive[i]);
    }
    if (runs < o.max_runs) halve(next, r);
    alive = std::move(next);
  }
  for (const auto& v : alive)
    r.trials[v.trial].outcome =
        fmt::format("tie when the budget of {} runs was spent: the leader stays", o.max_runs);
  return r;
}

}  // namespace kforge::agents
