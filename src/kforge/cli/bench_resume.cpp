// Resuming a bench: its kept settings, checked against what was given.
#include "kforge/cli/bench_resume.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

namespace kforge::cli {
namespace {

std::string shown(const std::string& v) { return v.empty() ? "(default)" : v; }
std::string shown(int v) { return std::to_string(v); }
std::string shown(double v) { return fmt::format("{}", v); }
std::string shown(const std::vector<std::string>& v) {
  return v.empty() ? "(every task)" : fmt::format("{}", fmt::join(v, ","));
}

// Takes the kept value when the option was left at its default; notes a conflict otherwise.
template <typename T>
void settle(const char* option, T& given, const T& fallback, const T& kept,
            std::vector<std::string>& conflicts) {
  if (given == fallback || given == kept) {
    given = kept;
    return;
  }
  conflicts.push_back(
      fmt::format("{} {} (the set was run with {})", option, shown(given), shown(kept)));
}

}  // namespace

nlohmann::json to_json(const BenchSettings& s) {
  return {{"suite", s.suite},   {"tasks", s.tasks}, {"impl", s.impl},       {"size", s.size},
          {"target", s.target}, {"dtype", s.dtype}, {"partner", s.partner}, {"threads", s.threads},
          {"budget", s.budget}, {"peers", s.peers}};
}

BenchSettings bench_settings_from_json(const nlohmann::json& j) {
  BenchSettings s;
  if (!j.is_object()) return s;
  s.suite = j.value("suite", "");
  s.tasks = j.value("tasks", std::vector<std::string>{});
  s.impl = j.value("impl", "");
  s.size = j.value("size", "");
  s.target = j.value("target", "");
  s.dtype = j.value("dtype", "");
  s.partner = j.value("partner", "");
  s.threads = j.value("threads", 0);
  s.budget = j.value("budget", 0.0);
  s.peers = j.value("peers", std::vector<std::string>{});
  return s;
}

Result<BenchSettings> settings_for_resume(const BenchSettings& given, const BenchSettings& defaults,
                                          const store::ResultSet& set, const std::string& host) {
  const std::string id = std::to_string(set.id);
  if (set.command != "bench")
    return Error{fmt::format("result {} is a kforge {} result, not a bench: nothing to resume", id,
                             set.command)};
  if (store::effective_state(set) == "running")
    return Error{fmt::format("result {} is still being written by a running bench", id)};
  if (!set.hostname.empty() && set.hostname != host)
    return Error{
        fmt::format("result {} was measured on {}, this is {}: a resume adds rows measured on the "
                    "same machine; "
                    "start a new bench here",
                    id, set.hostname, host)};
  auto kept = bench_settings_from_json(nlohmann::json::parse(set.settings, nullptr, false));
  if (!kept.peers.empty())
    return Error{fmt::format(
        "result {} is a bench --peers table: --resume goes on with a bench of one partner; run "
        "bench --peers again",
        id)};
  BenchSettings out = given;
  std::vector<std::string> conflicts;
  // The selection compares as a set: --tasks b,a is the selection a,b.
  auto sorted = [](std::vector<std::string> v) {
    std::sort(v.begin(), v.end());
    return v;
  };
  out.tasks = sorted(out.tasks);
  settle("--suite", out.suite, defaults.suite, kept.suite, conflicts);
  settle("--tasks", out.tasks, sorted(defaults.tasks), sorted(kept.tasks), conflicts);
  settle("--impl", out.impl, defaults.impl, kept.impl, conflicts);
  settle("--size", out.size, defaults.size, kept.size, conflicts);
  settle("--target", out.target, defaults.target, kept.target, conflicts);
  settle("--dtype", out.dtype, defaults.dtype, kept.dtype, conflicts);
  settle("--partner", out.partner, defaults.partner, kept.partner, conflicts);
  settle("--threads", out.threads, defaults.threads, kept.threads, conflicts);
  settle("--budget", out.budget, defaults.budget, kept.budget, conflicts);
  if (!conflicts.empty())
    return Error{fmt::format(
        "kforge bench --resume {}: a resume runs with the set's own settings, and these differ: "
        "{}; drop them (or give the set's values), or start a new bench without --resume",
        id, fmt::join(conflicts, "; "))};
  return out;
}

std::vector<std::string> tasks_left(const BenchSettings& settings,
                                    const std::vector<std::string>& all_ids,
                                    const std::vector<store::KeptResult>& rows) {
  std::set<std::string> done;
  for (const auto& r : rows) done.insert(r.task);
  std::vector<std::string> out;
  for (const auto& id : settings.tasks.empty() ? all_ids : settings.tasks)
    if (!done.count(id)) out.push_back(id);
  return out;
}

}  // namespace kforge::cli
