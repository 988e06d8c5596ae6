// Compile in parallel, then a king-of-the-hill of side-by-side runs, write back, re-check.
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

// One variant against the leader, side by side; a tie gets one more run with twice the budget.
TuneTrial duel(const target::BoundTarget& target, const eval::TaskContext& ctx,
               const std::string& source, const TuneConfig& variant, const TuneConfig& leader,
               eval::EvalOptions o, double budget_s) {
  TuneTrial t{variant, leader};
  for (double b : {budget_s, 2 * budget_s}) {
    o.time_budget_s = b;
    auto d = target.decide_paired(ctx, apply_config(source, variant), apply_config(source, leader),
                                  describe(leader), o);
    ++t.rounds;
    t.verdict = d.evaluation ? d.evaluation->verdict : eval::Verdict::runtime_error;
    t.ratio = d.ratio;
    t.winner = d.winner;
    t.busy = d.busy;
    t.reason = d.reason;
    if (d.winner != eval::Winner::tie) break;
  }
  return t;
}

}  // namespace

std::string TuneResult::summary() const {
  if (tunables.empty()) return "no tunables declared";
  std::string names;
  for (const auto& t : tunables) names += (names.empty() ? "" : ", ") + t.name;
  std::string s = fmt::format("tuned {} over {} side-by-side trials", names, trials.size());
  if (!best) return s + ": no variant beat the declared defaults, which stay";
  s += fmt::format(": {} beat the defaults", describe(*best));
  for (const auto& t : trials)
    if (t.config == *best && t.ratio)
      s += fmt::format(" ({:.2f}x its predecessor, 95% CI {:.2f}–{:.2f})", t.ratio->median,
                       t.ratio->ci_low, t.ratio->ci_high);
  if (recheck) s += fmt::format("; re-check: {}", eval::verdict_name(recheck->verdict));
  return s;
}

std::string TuneResult::table() const {
  if (trials.empty()) return "";
  std::string s =
      "| variant | against | verdict | speedup over it | 95% CI | outcome "
      "|\n|---|---|---|---|---|---|\n";
  for (const auto& t : trials) {
    std::string outcome = t.winner == eval::Winner::challenger  ? "took the lead"
                          : t.winner == eval::Winner::incumbent ? "slower"
                          : t.winner == eval::Winner::tie
                              ? fmt::format("tie after {} runs: the leader stays", t.rounds)
                              : (t.reason.empty() ? "not decided" : t.reason.substr(0, 120));
    s += fmt::format(
        "| {} | {} | {} | {} | {} | {} |\n", describe(t.config), describe(t.against),
        eval::verdict_name(t.verdict), t.ratio ? fmt::format("{:.3f}x", t.ratio->median) : "–",
        t.ratio ? fmt::format("{:.3f}–{:.3f}", t.ratio->ci_low, t.ratio->ci_high) : "–", outcome);
  }
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
  TuneConfig leader = defaults;
  for (std::size_t i = 0; i < configs.size(); ++i) {
    say(fmt::format("tuning: {} against {} side by side ({}/{})", describe(configs[i]),
                    describe(leader), i + 1, configs.size()));
    result.trials.push_back(duel(target, ctx, source, configs[i], leader, eo, o.time_budget_s));
    if (result.trials.back().winner == eval::Winner::challenger) leader = configs[i];
  }
  if (leader == defaults) return result;
  result.best = leader;

  // The winner's values written in, and that source evaluated from scratch.
  result.tuned_source = apply_config(source, *result.best);
  say(fmt::format("tuning: re-checking {}", describe(*result.best)));
  result.recheck = target.evaluate(ctx, result.tuned_source, target.kernel_file(), base);
  return result;
}

}  // namespace kforge::agents
