// Compile in parallel, then race the variants side by side, write the winner back, re-check.
#include "kforge/agents/tuner.h"

#include <fmt/format.h>

#include <atomic>
#include <thread>

namespace kforge::agents {
namespace {

void compile_all(const target::BoundTarget& target, const eval::TaskContext& ctx,
                 const std::string& source, const eval::EvalOptions& base,
                 const std::vector<TuneConfig>& configs, int jobs) {
  std::atomic<std::size_t> next{0};
  std::vector<std::thread> workers;
  for (int w = 0; w < std::max(1, jobs); ++w)
    workers.emplace_back([&] {
      for (std::size_t i; (i = next++) < configs.size();) {
        auto shared = base.machine_lock ? base.machine_lock->share() : eval::MachineLock::Shared();
        // Only warms the artifact cache: a failure shows again, with its diagnostics, in the trial.
        (void)target.compile(ctx, apply_config(source, configs[i]), base.role);
      }
    });
  for (auto& w : workers) w.join();
}

}  // namespace

std::string TuneResult::summary() const {
  if (tunables.empty()) return "no tunables declared";
  std::string names;
  for (const auto& t : tunables) names += (names.empty() ? "" : ", ") + t.name;
  std::string s =
      fmt::format("tuned {}: {} side-by-side runs (at most {})", names, trials.size(), max_runs);
  if (!unraced.empty()) s += fmt::format(", {} variant(s) left untimed", unraced.size());
  if (!best) return s + ": no variant beat the declared defaults, which stay";
  s += fmt::format(": {} beat the defaults", describe(*best));
  for (const auto& t : trials)
    if (t.config == *best && t.winner == eval::Winner::challenger && t.ratio)
      s += fmt::format(" ({:.2f}x its predecessor, 95% CI {:.2f}–{:.2f})", t.ratio->median,
                       t.ratio->ci_low, t.ratio->ci_high);
  if (recheck) s += fmt::format("; re-check: {}", eval::verdict_name(recheck->verdict));
  return s;
}

std::string TuneResult::table() const {
  if (trials.empty()) return "";
  std::string s =
      "| variant | against | verdict | speedup over it | 95% CI | round (timing) | outcome "
      "|\n|---|---|---|---|---|---|---|\n";
  for (const auto& t : trials) {
    std::string outcome = t.outcome;
    if (t.winner == eval::Winner::undecided && !t.reason.empty())
      outcome += ": " + t.reason.substr(0, 120);
    s +=
        fmt::format("| {} | {} | {} | {} | {} | {} ({:.2g} s) | {} |\n", describe(t.config),
                    describe(t.against), eval::verdict_name(t.verdict),
                    t.ratio ? fmt::format("{:.3f}x", t.ratio->median) : "–",
                    t.ratio ? fmt::format("{:.3f}–{:.3f}", t.ratio->ci_low, t.ratio->ci_high) : "–",
                    t.round, t.budget_s, outcome);
  }
  for (const auto& c : unraced)
    s += fmt::format("| {} | – | – | – | – | – | not timed: the budget of {} runs was spent |\n",
                     describe(c), max_runs);
  if (recheck)
    s += fmt::format("The winner's values, written in as the defaults and checked again: {}\n",
                     eval::verdict_name(recheck->verdict));
  return s;
}

Result<TuneResult> tune(const target::BoundTarget& target, const eval::TaskContext& ctx,
                        const std::string& source, const eval::EvalOptions& base,
                        const TuneOptions& o,
                        const std::function<void(std::string_view)>& progress) {
  auto say = [&](const std::string& m) {
    if (progress) progress(m);
  };
  if (auto why = target.target().untunable_reason(); !why.empty()) return Error{why};
  auto tunables = parse_tunables(source);
  if (!tunables) return tunables.error();
  TuneResult result;
  result.tunables = *tunables;
  if (result.tunables.empty()) return result;
  const TuneConfig defaults = default_config(result.tunables);
  std::vector<TuneConfig> configs;
  for (auto& c : tune_configs(result.tunables, o.budget, o.seed))
    if (c != defaults) configs.push_back(std::move(c));
  if (configs.empty()) return result;

  say(fmt::format("tuning: compiling {} variants", configs.size()));
  compile_all(target, ctx, source, base, configs, o.jobs);

  eval::EvalOptions eo = base;
  eo.progress = nullptr;
  say(
      fmt::format("tuning: racing {} variants side by side against the defaults, at most {} runs "
                  "(--tune-rounds; default {})",
                  configs.size(), o.rounds, TuneOptions{}.rounds));
  auto judge = [&](const TuneConfig& variant, const TuneConfig& leader, double budget_s) {
    eo.time_budget_s = budget_s;
    return target.decide_paired(ctx, apply_config(source, variant), apply_config(source, leader),
                                describe(leader), eo);
  };
  // A wait for a quiet machine before each round, not before each run: on a machine busy for
  // minutes every run waited its full bound (15 s) and then timed busy anyway, four times a
  // variant (a busy run is confirmed, a tie raced again): 420 s of one iteration's 691 s of
  // tuning. A run timed busy is still marked so and confirmed by the judge (paired_decision.h).
  eo.quiet_waiter = nullptr;
  RaceOptions race_options{o.rounds, o.time_budget_s / 2};
  if (base.quiet_waiter && base.time)
    race_options.round_starts = [&](int) {
      const int threads = base.threads > 0 ? base.threads : eval::usable_cpus();
      base.quiet_waiter->wait(threads, std::vector<pid_t>{}, progress);
    };
  auto raced = race(defaults, configs, judge, race_options, progress);
  result.trials = std::move(raced.trials);
  result.unraced = std::move(raced.unraced);
  result.max_runs = o.rounds;
  const TuneConfig leader = raced.leader;
  if (leader == defaults) return result;
  result.best = leader;

  // The winner's values written in, and that source evaluated from scratch.
  result.tuned_source = apply_config(source, *result.best);
  say(fmt::format("tuning: re-checking {}", describe(*result.best)));
  result.recheck = target.evaluate(ctx, result.tuned_source, target.kernel_file(), base);
  return result;
}

}  // namespace kforge::agents
