// Compile in parallel, time one at a time, write back, re-check.
#include "kforge/agents/tuner.h"

#include <fmt/format.h>

#include <atomic>
#include <thread>

namespace kforge::agents {

std::string TuneResult::summary() const {
  if (tunables.empty()) return "no tunables declared";
  std::string s = fmt::format("tuned {} over {} trials", [&] {
    std::string names;
    for (const auto& t : tunables) names += (names.empty() ? "" : ", ") + t.name;
    return names;
  }(), trials.size());
  if (!best) return s + ": no variant was correct";
  s += fmt::format(": best {}", describe(*best));
  for (const auto& t : trials)
    if (t.config == *best && t.median_ms) s += fmt::format(" ({:.4g} ms)", *t.median_ms);
  if (recheck) s += fmt::format("; re-check: {}", eval::verdict_name(recheck->verdict));
  return s;
}

Result<TuneResult> tune(const eval::TaskContext& ctx, const std::string& source, const std::string& file_name, const eval::EvalOptions& base,
                        const TuneOptions& o, const std::function<void(std::string_view)>& progress) {
  auto say = [&](const std::string& m) {
    if (progress) progress(m);
  };
  auto tunables = parse_tunables(source);
  if (!tunables) return tunables.error();
  TuneResult result;
  result.tunables = *tunables;
  if (result.tunables.empty()) return result;
  auto configs = tune_configs(result.tunables, o.budget, o.seed);

  // 1. Compile every variant, o.jobs at a time (they land in the artifact cache).
  say(fmt::format("tuning: compiling {} variants", configs.size()));
  std::atomic<std::size_t> next{0};
  std::vector<std::thread> workers;
  for (int w = 0; w < std::max(1, o.jobs); ++w)
    workers.emplace_back([&] {
      for (std::size_t i; (i = next++) < configs.size();) {
        auto shared = base.machine_lock ? base.machine_lock->share() : eval::MachineLock::Shared();
        ctx.compiler().compile({base.role, source, file_name, ctx.header(), config_flags(configs[i])});
      }
    });
  for (auto& w : workers) w.join();

  // 2. Check and time each, alone.
  for (std::size_t i = 0; i < configs.size(); ++i) {
    say(fmt::format("tuning: {} ({}/{})", describe(configs[i]), i + 1, configs.size()));
    eval::EvalOptions eo = base;
    eo.extra_flags = config_flags(configs[i]);
    eo.time_budget_s = o.time_budget_s;
    eo.profile_seconds = 0;
    eo.progress = nullptr;
    auto e = eval::evaluate(ctx, source, file_name, eo);
    TuneTrial t{configs[i], e.verdict, std::nullopt, std::nullopt, e.reason};
    if (e.correct() && e.candidate) t.median_ms = e.candidate->median_ms;
    if (e.speedup) t.speedup = e.speedup->median;
    result.trials.push_back(std::move(t));
  }
  const TuneTrial* best = nullptr;
  for (const auto& t : result.trials)
    if (t.median_ms && (!best || *t.median_ms < *best->median_ms)) best = &t;
  if (!best) return result;
  result.best = best->config;

  // 3. Write the values in and evaluate the tuned source from scratch.
  result.tuned_source = apply_config(source, *result.best);
  say(fmt::format("tuning: re-checking {}", describe(*result.best)));
  result.recheck = eval::evaluate(ctx, result.tuned_source, file_name, base);
  return result;
}

}  // namespace kforge::agents
