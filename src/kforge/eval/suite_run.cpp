// One evaluation per task, in suite order; a task that cannot be loaded is reported, not fatal.
#include "kforge/eval/suite_run.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <mutex>
#include <set>
#include <thread>

#include "kforge/core/fs.h"
#include "kforge/core/paths.h"
#include "kforge/core/suggest.h"
#include "kforge/core/task_loader.h"

namespace kforge::eval {
namespace {

struct Source {
  std::filesystem::path path;
  toolchain::Role role = toolchain::Role::candidate;
};

// Where the implementation of `spec` comes from, or nullopt (with a reason) when it has none.
std::optional<Source> source_for(const core::TaskSpec& spec, const SuiteRunOptions& o,
                                 std::string& why) {
  const std::string& impl = o.impl;
  if (impl == "baseline") {
    if (!o.baseline_path) return Source{spec.baseline_path(), toolchain::Role::baseline};
    auto path = o.baseline_path(spec);
    if (!std::filesystem::exists(path)) {
      why = "skipped: no " + path.filename().string();
      return std::nullopt;
    }
    return Source{path, toolchain::Role::baseline};
  }
  if (impl == "reference") return Source{spec.reference_path(), toolchain::Role::reference};
  if (impl == "expert") {
    auto path = o.expert_path ? o.expert_path(spec) : spec.expert_path();
    if (!std::filesystem::exists(path)) {
      why = "skipped: no " + path.filename().string();
      return std::nullopt;
    }
    return Source{path, toolchain::Role::expert};
  }
  auto path = std::filesystem::path(impl) / (spec.id + o.kernel_extension);
  if (!std::filesystem::exists(path)) {
    why = fmt::format("skipped: no {}", path.string());
    return std::nullopt;
  }
  return Source{path, toolchain::Role::candidate};
}

std::vector<std::string> task_ids(const std::filesystem::path& suite) {
  std::vector<std::string> ids;
  for (const auto& dir : core::list_task_dirs(suite)) ids.push_back(dir.filename().string());
  return ids;
}

// Sizes declared by the selected tasks that load (one that does not is reported when it runs).
std::vector<std::string> declared_sizes(const std::filesystem::path& suite,
                                        const std::vector<std::string>& selected) {
  std::vector<std::string> sizes;
  for (const auto& id : selected) {
    auto spec = core::load_task(suite / id);
    if (!spec) continue;
    for (const auto& s : spec->sizes)
      if (std::find(sizes.begin(), sizes.end(), s.name) == sizes.end()) sizes.push_back(s.name);
  }
  std::sort(sizes.begin(), sizes.end());
  return sizes;
}

// One task, whatever happens: a task that cannot be loaded, or a fault in kforge itself while
// judging it, is this task's row ("error: …"), never the end of the suite.
SuiteTaskResult run_task(const SuiteRunOptions& o, toolchain::Compiler& compiler,
                         const std::filesystem::path& dir) {
  SuiteTaskResult r{dir.filename().string(), "evaluated", std::nullopt};
  try {
    auto spec = core::load_task(dir);
    if (!spec) {
      r.status = "error: " + spec.error().message;
      return r;
    }
    r.id = spec->id;
    auto source = source_for(*spec, o, r.status);
    if (!source) return r;
    auto ctx = TaskContext::create(*spec, o.size, compiler, core::state_dir());
    if (!ctx) {
      r.status = "error: " + ctx.error().message;
      return r;
    }
    auto text = core::read_text(source->path);
    if (!text) {
      r.status = "error: " + text.error().message;
      return r;
    }
    EvalOptions eo = o.eval;
    eo.role = source->role;
    if (!o.dump_dir.empty()) eo.dump_dir = o.dump_dir / spec->id;
    const std::string name = source->path.filename().string();
    r.evaluation = o.judge ? o.judge(*ctx, *text, name, eo) : evaluate(*ctx, *text, name, eo);
  } catch (const std::exception& e) {
    r.evaluation.reset();
    r.status =
        fmt::format("error: internal error while judging {} (please report): {}", r.id, e.what());
  }
  return r;
}

}  // namespace

Status check_selection(const SuiteRunOptions& o) {
  std::vector<std::string> ids = task_ids(o.suite);
  for (const auto& t : o.tasks)
    if (std::find(ids.begin(), ids.end(), t) == ids.end())
      return Error{fmt::format("--tasks: no task '{}' in {}{}", t, o.suite.string(),
                               core::did_you_mean(t, ids))};
  if (o.size.empty()) return ok_status();
  auto sizes = declared_sizes(o.suite, o.tasks.empty() ? ids : o.tasks);
  if (sizes.empty() || std::find(sizes.begin(), sizes.end(), o.size) != sizes.end())
    return ok_status();
  return Error{fmt::format("--size: no selected task has a size '{}' (they have: {}){}", o.size,
                           fmt::join(sizes, ", "), core::did_you_mean(o.size, sizes))};
}

std::vector<SuiteTaskResult> run_suite(
    const SuiteRunOptions& o, toolchain::Compiler& compiler,
    const std::function<void(const SuiteTaskResult&, int, int)>& on_task) {
  std::vector<std::filesystem::path> dirs;
  std::set<std::string> wanted(o.tasks.begin(), o.tasks.end());
  for (const auto& dir : core::list_task_dirs(o.suite))
    if (wanted.empty() || wanted.count(dir.filename().string())) dirs.push_back(dir);
  std::vector<SuiteTaskResult> results(dirs.size());
  std::atomic<std::size_t> next{0};
  std::mutex mu;
  int index = 0;
  auto worker = [&] {
    for (std::size_t i; (i = next++) < dirs.size();) {
      if (o.eval.cancel && o.eval.cancel->load()) {  // Ctrl-C: start no further task
        std::lock_guard lock(mu);
        results[i] = {dirs[i].filename().string(), "interrupted (Ctrl-C): not run", std::nullopt};
        continue;
      }
      auto r = run_task(o, compiler, dirs[i]);
      std::lock_guard lock(mu);
      results[i] = std::move(r);
      if (on_task) on_task(results[i], ++index, static_cast<int>(dirs.size()));
    }
  };
  auto n = std::clamp<std::size_t>(static_cast<std::size_t>(o.parallel), 1,
                                   std::max<std::size_t>(1, dirs.size()));
  std::vector<std::thread> threads;
  for (std::size_t t = 1; t < n; ++t) threads.emplace_back(worker);
  worker();
  for (auto& t : threads) t.join();
  return results;
}

void remeasure_busy(std::vector<SuiteTaskResult>& results, int retries,
                    const std::function<SuiteTaskResult(const SuiteTaskResult&)>& remeasure,
                    const std::function<void(const SuiteTaskResult&, int)>& on_retry) {
  // An interpreter's time is no performance figure, busy or quiet: measuring it again on a quieter
  // machine would give none either (a Pallas kernel on the CPU backend, each try a new worker).
  auto worth_it = [](const SuiteTaskResult& r) {
    return r.busy() && r.evaluation->timing_is_performance();
  };
  for (auto& r : results)
    for (int attempt = 1; attempt <= retries && worth_it(r); ++attempt) {
      if (r.evaluation && r.evaluation->verdict == Verdict::interrupted) break;
      SuiteTaskResult again = remeasure(r);
      again.remeasured = attempt;
      if (again.evaluation)
        r = std::move(again);
      else
        r.remeasured = attempt;
      if (on_retry) on_retry(r, attempt);
    }
}

SuiteTaskResult rerun_task(const SuiteRunOptions& o, toolchain::Compiler& compiler,
                           const std::string& id) {
  for (const auto& dir : core::list_task_dirs(o.suite))
    if (dir.filename().string() == id) return run_task(o, compiler, dir);
  for (const auto& dir : core::list_task_dirs(o.suite)) {  // a folder named apart from its id
    auto spec = core::load_task(dir);
    if (spec && spec->id == id) return run_task(o, compiler, dir);
  }
  return {id, "error: no task '" + id + "' in " + o.suite.string(), std::nullopt};
}

SuiteSummary summarize_suite(const std::vector<SuiteTaskResult>& results, double seconds) {
  SuiteSummary s;
  s.tasks = static_cast<int>(results.size());
  s.seconds = seconds;
  double log_sum = 0;
  int with_speedup = 0, fast1 = 0, fast15 = 0;
  for (const auto& r : results) {
    if (!r.evaluation) continue;
    ++s.evaluated;
    const auto& e = *r.evaluation;
    if (!e.correct()) continue;
    ++s.correct;
    if (e.machine_busy && e.speedup) {
      ++s.busy;
      continue;
    }
    if (!e.speedup || e.speedup->median <= 0) continue;
    ++with_speedup;
    log_sum += std::log(e.speedup->median);
    fast1 += e.speedup->median > 1.0;
    fast15 += e.speedup->median > 1.5;
  }
  if (const int judged = s.evaluated - s.busy; judged > 0) {
    s.fast_1 = static_cast<double>(fast1) / judged;
    s.fast_1_5 = static_cast<double>(fast15) / judged;
  }
  if (with_speedup) s.geomean_speedup = std::exp(log_sum / with_speedup);
  return s;
}

nlohmann::json to_json(const SuiteTaskResult& r) {
  nlohmann::json j = {
      {"task", r.id}, {"status", r.status}, {"remeasured", r.remeasured}, {"busy", r.busy()}};
  if (r.evaluation) j["evaluation"] = to_json(*r.evaluation);
  return j;
}

nlohmann::json to_json(const SuiteSummary& s) {
  auto or_null = [](const std::optional<double>& v) {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
  };
  return {{"tasks", s.tasks},
          {"evaluated", s.evaluated},
          {"correct", s.correct},
          {"fast_1", or_null(s.fast_1)},
          {"fast_1.5", or_null(s.fast_1_5)},
          {"geomean_speedup", or_null(s.geomean_speedup)},
          {"busy", s.busy},
          {"seconds", s.seconds}};
}

}  // namespace kforge::eval
