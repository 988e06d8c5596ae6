// kforge eval TASK KERNEL.cpp [--size S] [--threads N] [--against B.cpp] [--json]
// Every evaluation is kept in the store as a result of one row (`kforge results`).
// Exit status: 0 correct, 1 not correct, 2 usage error.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "kforge/cli/colour.h"
#include "kforge/cli/commands.h"
#include "kforge/cli/common.h"
#include "kforge/cli/executor_setup.h"
#include "kforge/cli/kept_results.h"
#include "kforge/cli/table.h"
#include "kforge/cli/time_row.h"
#include "kforge/core/fs.h"
#include "kforge/core/paths.h"
#include "kforge/core/threads.h"
#include "kforge/eval/evaluate.h"
#include "kforge/eval/run_spread.h"
#include "kforge/llm/interrupt.h"
#include "kforge/targets/bound_target.h"

namespace kforge::cli {
namespace {

struct EvalCliOptions {
  std::string task, kernel, size, against, role = "candidate", against_role = "candidate";
  std::string config, executor;
  int threads = 0;
  bool json = false, no_time = false, profile = false;
  std::string partner = "baseline";
  std::string dump;
  double budget = 2.0;
  int check_sets = 3;
  int runs = 1;
  double timeout = 30;
  std::vector<std::string> allow_libs;
  std::string target;
  std::string dtype = "f32";
};

toolchain::Role parse_role(const std::string& r) {
  if (r == "candidate") return toolchain::Role::candidate;
  if (r == "expert") return toolchain::Role::expert;
  if (r == "baseline") return toolchain::Role::baseline;
  if (r == "reference") return toolchain::Role::reference;
  throw UsageError(
      fmt::format("--role must be candidate, expert, baseline or reference, not '{}'", r));
}

// " on CPU 1", " on CPUs 1,0" (thread i on the i-th): where the evaluation ran its kernels.
std::string on_cpus(const std::vector<int>& cpus) {
  if (cpus.empty()) return "";
  return fmt::format(" on CPU{} {}", cpus.size() == 1 ? "" : "s", fmt::join(cpus, ","));
}

std::string print_human(const eval::Evaluation& e) {
  std::vector<std::pair<std::string, std::string>> rows = {
      {"task", fmt::format("{} (size {}, {} thread{}{})", e.task_id, e.size, e.threads,
                           e.threads == 1 ? "" : "s", on_cpus(e.cpus))},
      {"verdict", paint_verdict(eval::verdict_name(e.verdict))},
      {"reason", e.reason},
  };
  if (e.partner_failed)
    rows.push_back(
        {"partner", fmt::format("the {} failed, not the kernel: no speedup", e.partner)});
  if (e.mismatch) rows.push_back({"mismatch", e.mismatch->summary()});
  if (!e.sanitizer_note.empty()) rows.push_back({"sanitizer", e.sanitizer_note});
  if (!e.timing_method.empty()) rows.push_back({"timed", e.timing_method});
  if (!e.walls.empty() && e.role == "candidate") rows.push_back({"walls", e.walls});
  if (!e.pallas_mode.empty())
    rows.push_back({"pallas", fmt::format("{} ({} inputs)", e.pallas_mode, e.dtype)});
  if (e.candidate && !e.timing_is_performance())
    rows.push_back(
        {"timing basis",
         fmt::format("{}: the kernel ran in Pallas's interpreter, so its time and the ratio "
                     "below say nothing about its speed on a TPU or GPU (not a performance "
                     "figure); correctness is what this run decides",
                     e.timing_basis)});
  else if (!e.timing_basis.empty())
    rows.push_back({"timing basis", e.timing_basis + " (real device timing)"});
  if (e.candidate) {
    rows.push_back(
        {"kernel", fmt::format("median {} ms  (p10 {}, p90 {}; {} runs)",
                               format_ms(e.candidate->median_ms), format_ms(e.candidate->p10_ms),
                               format_ms(e.candidate->p90_ms), e.candidate->samples)});
    if (e.baseline)
      rows.push_back(
          {e.partner,
           fmt::format("median {} ms  (p10 {}, p90 {})", format_ms(e.baseline->median_ms),
                       format_ms(e.baseline->p10_ms), format_ms(e.baseline->p90_ms))});
    if (!e.partner_note.empty()) rows.push_back({"partner note", e.partner_note});
    if (!e.partner_version.empty())
      rows.push_back(
          {"peer", fmt::format("{}: compiled (or loaded from the compile cache) and warmed up in "
                               "{:.2f} + {:.2f} s (untimed); its times include copying its outputs "
                               "into kforge's buffers ({} ms)",
                               e.partner_version, e.partner_compile_s, e.partner_warmup_s,
                               format_ms(e.partner_copy_ms))});
    if (e.speedup && !e.timing_is_performance())
      rows.push_back({"speedup", fmt::format("{} against the {} in interpret mode: not a "
                                             "performance figure",
                                             format_ratio(e.speedup->median), e.partner)});
    else if (e.speedup && e.machine_busy)
      rows.push_back({"speedup",
                      "none: the machine was busy (see below), so the pairs measured "
                      "the machine, not the kernel; run again on a quiet machine"});
    else if (e.speedup)
      rows.push_back(
          {"speedup", fmt::format("{}  (95% CI {}–{}; p10 {}, p90 {}; median of per-pair ratios)",
                                  paint_ratio(e.speedup->median), format_ratio(e.speedup->ci_low),
                                  format_ratio(e.speedup->ci_high), format_ratio(e.speedup->p10),
                                  format_ratio(e.speedup->p90))});
    std::string perf = fmt::format("{:.2f} GFLOP/s, {:.2f} GB/s", e.gflops, e.gbps);
    if (e.roofline > 0) perf += fmt::format(", {} of the roofline", format_percent(e.roofline));
    if (!e.roofline_note.empty()) perf += fmt::format(" ({})", e.roofline_note);
    rows.push_back({"throughput", perf});
    // Every call is started and seen to end from kforge's process: that round trip is in both
    // sides' times, and pulls the ratio of very short kernels toward 1.
    if (e.call_overhead_ms > 0 && e.candidate->median_ms < 20 * e.call_overhead_ms)
      rows.push_back(
          {"note",
           fmt::format(
               "each call includes kforge's round trip of {} ms ({} of this kernel's median): "
               "ratios of "
               "kernels this short are pulled toward 1; a larger --size measures the kernel itself",
               format_ms(e.call_overhead_ms),
               format_percent(e.call_overhead_ms / e.candidate->median_ms))});
    if (e.machine_busy)
      rows.push_back({"busy", fmt::format("the machine was busy: {} (load {:.1f}); absolute times "
                                          "are unreliable and no speedup is given",
                                          e.busy_reason, e.load_average)});
    if (e.quiet_wait.waited_s > 0)
      rows.push_back(
          {"waited", fmt::format("{:.0f} s for a quiet machine ({}), {}", e.quiet_wait.waited_s,
                                 e.quiet_wait.reason,
                                 e.quiet_wait.quiet ? "then quiet" : "still busy after")});
    if (e.partner_pace.slowdown > 0 && e.partner_pace.quiet)
      rows.push_back(
          {"partner pace",
           fmt::format(
               "the {} ran at {:.2f}x its quiet median ({} ms over {} quiet runs on this machine)",
               e.partner, e.partner_pace.slowdown, format_ms(e.partner_pace.quiet->median_ms),
               e.partner_pace.quiet->runs)});
  }
  // A GPU kernel's ptxas figures: registers, spills, shared memory, occupancy at 256 threads.
  if (!e.compile.resources.empty())
    rows.push_back({"kernels", toolchain::format_resources(e.compile.resources)});
  if (e.profile) {
    rows.push_back({"profile", e.profile->summary()});
    rows.push_back({"loops", toolchain::format_vector_remarks(e.profile->vectorization)});
  }
  if (e.verdict == eval::Verdict::compile_error && !e.compile.command.empty())
    rows.push_back({"command", e.compile.command});
  rows.push_back({"time", time_row(e)});
  return key_values(rows);
}

// The evaluation as a result of one row in the store (with its spread between runs, if any);
// returns its id, or nothing when it was interrupted or the store could not be written.
std::optional<std::int64_t> keep_eval(const EvalCliOptions& o, const eval::Evaluation& e,
                                      const target::Target& target,
                                      const std::optional<eval::MachineProfile>& machine,
                                      const nlohmann::json& between_runs) {
  eval::SuiteTaskResult r{e.task_id, "evaluated", e};
  if (!finished(r)) return std::nullopt;
  const eval::MachineProfile m = machine ? *machine : eval::describe_cpu();
  const int threads = e.threads > 0 ? e.threads : core::thread_count(o.threads);
  const std::string kernel = std::filesystem::absolute(o.kernel).lexically_normal().string();
  store::ResultSet set = new_result_set("eval", m, threads);
  set.task = e.task_id;
  set.target = std::string(target.name());
  set.size = o.size;
  set.dtype = o.dtype;
  set.impl = kernel;
  set.partner = e.partner;
  set.settings = nlohmann::json{{"task", o.task},       {"kernel", kernel},
                                {"role", o.role},       {"against", o.against},
                                {"partner", o.partner}, {"budget", o.budget},
                                {"runs", o.runs},       {"time", !o.no_time},
                                {"threads", o.threads}, {"check_sets", o.check_sets}}
                     .dump();
  auto keeper = ResultKeeper::start(set);
  if (!keeper.id()) return std::nullopt;
  auto row = kept_row(
      *keeper.id(), eval::stamp_run(m, std::filesystem::path(kernel).filename().string(), threads),
      r, {o.role, kernel, e.partner, o.dtype, o.size});
  if (!between_runs.is_null()) {  // the spread of --runs N, beside the evaluation it qualifies
    auto j = nlohmann::json::parse(row.row);
    j["task"]["evaluation"]["between_runs"] = between_runs;
    row.row = j.dump();
  }
  keeper.keep(row);
  keeper.finish(false);
  return keeper.id();
}

int run_eval(const EvalCliOptions& o) {
  auto spec = load_task_arg(o.task);
  // A folder or a binary is a usage error here, not a compile_error (or a crash) later.
  auto source = core::read_source(o.kernel, core::state_dir());
  if (!source) throw UsageError(source.error().message);
  const target::Target& target = target_arg(o.target);
  check_partner_for_target(target, o.partner, false);
  check_dtype_for_target(target, o.dtype);
  // Ctrl-C stops the step under way (compile, check, timing), cleans up and exits 130.
  const auto* cancel = llm::install_interrupt_handler();
  const auto bound = target::bind(target, toolchain_settings(), o.dtype);
  auto compiler = make_compiler();
  auto ctx = eval::TaskContext::create(spec, o.size, *compiler, core::state_dir());
  if (!ctx) throw UsageError(ctx.error().message);

  eval::EvalOptions opt;
  opt.cancel = cancel;
  opt.threads = o.threads;
  opt.time = !o.no_time;
  apply_partner(o.partner, opt);
  opt.role = parse_role(o.role);
  opt.allow_libs = o.allow_libs;
  opt.check_sets = o.check_sets;
  opt.time_budget_s = o.budget;
  opt.call_timeout_s = o.timeout;
  opt.progress = [](std::string_view m) { progress(m); };
  opt.dump_dir = o.dump;
  opt.dtype = bound.dtype();
  if (o.profile) opt.profile_seconds = 1.0;
  if (!o.against.empty()) {
    auto b = core::read_source(o.against, core::state_dir());
    if (!b) throw UsageError(b.error().message);
    opt.against_source = *b;
    opt.against_name = std::filesystem::path(o.against).filename().string();
    opt.against_role = parse_role(o.against_role);
  }
  auto executor = make_executor(o.executor, o.config);
  if (executor && !o.dump.empty())
    throw UsageError("--dump writes on this machine: use it with --executor local");
  opt.executor = executor.get();
  auto lock = make_machine_lock();
  opt.machine_lock = lock.get();
  opt.quiet_waiter = &quiet_waiter();
  std::optional<eval::MachineProfile> machine;
  // The roofline of a cpu kernel is this CPU's; a GPU's peaks are `kforge hw --target cuda`'s.
  // A node measures its own peaks.
  if (opt.time && !executor && target.roofline_applies()) {
    auto m = this_machine(lock.get());
    if (m)
      machine = *m;
    else
      fmt::print(stderr, "kforge: warning: no roofline: {}\n", m.error().message);
  }
  opt.machine = machine ? &*machine : nullptr;

  const std::string name = std::filesystem::path(o.kernel).filename().string();
  auto e = bound.evaluate(*ctx, *source, name, opt);
  // More runs of the same pair (the compile is cached): the spread one run's interval hides.
  std::vector<eval::SpeedupStats> ratios;
  int busy_runs = 0;
  auto keep = [&](const eval::Evaluation& run) {
    if (run.speedup) ratios.push_back(*run.speedup);
    busy_runs += run.machine_busy ? 1 : 0;
  };
  keep(e);
  for (int run = 2; run <= o.runs && e.correct() && e.speedup; ++run) {
    progress(fmt::format("run {} of {}", run, o.runs));
    auto again = bound.evaluate(*ctx, *source, name, opt);
    if (!again.correct()) {
      e = std::move(again);  // a later run's failure is the verdict
      break;
    }
    keep(again);
  }
  const bool several = e.correct() && ratios.size() > 1;
  // A busy run's ratio is no figure (see Evaluation::machine_busy): nor is a spread it is part of.
  const auto spread = several && busy_runs == 0 ? eval::run_spread(ratios) : std::nullopt;
  const std::string busy_note = fmt::format("no figure: {} of {} runs were timed on a busy machine",
                                            busy_runs, ratios.size());
  if (executor && progress_enabled()) progress(executor->summary());
  nlohmann::json between_runs;
  if (spread) between_runs = *spread;
  if (several && !spread)
    between_runs = {{"runs", ratios.size()}, {"busy_runs", busy_runs}, {"note", busy_note}};
  if (auto id = keep_eval(o, e, target, machine, between_runs); id && progress_enabled())
    progress(fmt::format("kept as result {} (kforge results {})", *id, *id));
  if (o.json) {
    auto j = eval::to_json(e);
    if (!between_runs.is_null()) j["between_runs"] = between_runs;
    fmt::print("{}\n", j.dump(2));
  } else {
    fmt::print("{}", print_human(e));
    if (several)
      fmt::print("{}", key_values({{"between runs", spread ? spread->describe() : busy_note}}));
  }
  return e.correct() ? 0 : 1;
}

}  // namespace

void add_eval(CommandLine& cmd) {
  auto o = std::make_shared<EvalCliOptions>();
  cmd.bind("task", o->task);
  cmd.require("task");
  cmd.bind("kernel", o->kernel);
  cmd.require("kernel");
  cmd.bind("size", o->size);
  cmd.bind("threads", o->threads);
  cmd.bind("against", o->against);
  cmd.bind("against-role", o->against_role);
  cmd.bind("no-time", o->no_time);
  cmd.bind("partner", o->partner);
  cmd.bind("budget", o->budget);
  cmd.bind("check-sets", o->check_sets);
  cmd.bind("runs", o->runs);
  cmd.bind("call-timeout", o->timeout);
  cmd.bind("allow-lib", o->allow_libs);
  cmd.bind("role", o->role);
  cmd.bind("profile", o->profile);
  cmd.bind("dump", o->dump);
  cmd.bind("json", o->json);
  cmd.bind("config", o->config);
  cmd.bind("executor", o->executor);
  cmd.bind("target", o->target);
  cmd.bind("dtype", o->dtype);
  cmd.on_run([o] { return run_eval(*o); });
}

}  // namespace kforge::cli
