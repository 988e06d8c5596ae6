// kforge bench [--suite DIR] [--tasks a,b] [--impl baseline|expert|reference|DIR] [--size S]
//              [--threads N] [--budget S] [--retries N] [--json|--csv] [--dump DIR]
// kforge bench --resume ID                  go on with a bench that was stopped (Ctrl-C)
// One implementation of every task, each judged by the same pipeline as `kforge eval`. A run is
// one result set in the store (`kforge results`), a row written as each task ends: Ctrl-C keeps
// the rows done, and --resume runs only the tasks that have none, with the set's own settings.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>
#include <numeric>
#include <set>

#include "kforge/cli/bench_peers.h"
#include "kforge/cli/bench_resume.h"
#include "kforge/cli/bench_row.h"
#include "kforge/cli/colour.h"
#include "kforge/cli/commands.h"
#include "kforge/cli/common.h"
#include "kforge/cli/executor_setup.h"
#include "kforge/cli/kept_results.h"
#include "kforge/cli/table.h"
#include "kforge/core/paths.h"
#include "kforge/core/python_env.h"
#include "kforge/core/task_loader.h"
#include "kforge/core/threads.h"
#include "kforge/eval/peer_table.h"
#include "kforge/eval/python_kernel.h"
#include "kforge/eval/result_row.h"
#include "kforge/eval/suite_run.h"
#include "kforge/llm/interrupt.h"
#include "kforge/store/store.h"
#include "kforge/targets/bound_target.h"

namespace kforge::cli {
namespace {

struct BenchOptions {
  std::string suite, tasks, impl = "baseline", size, dump, config, executor, target,
                            partner = "libtorch", peer_set, dtype = "f32";
  int threads = 0;
  int retries = 2;
  double budget = 2.0;
  bool json = false, csv = false, peers = false;
  std::int64_t resume = 0;  // a result set id
};

// The options that decide what a bench measures, in the form its result set keeps them: paths
// absolute, the partner's alias resolved, the thread count resolved (a value left at its default
// stays as it is, so that a resume can tell it was not given).
BenchSettings settings_of(const BenchOptions& o) {
  BenchSettings s;
  s.suite = o.suite.empty() ? "" : std::filesystem::absolute(o.suite).lexically_normal().string();
  s.tasks = split_commas(o.tasks);
  s.impl = std::filesystem::is_directory(o.impl)
               ? std::filesystem::absolute(o.impl).lexically_normal().string()
               : o.impl;
  s.size = o.size;
  s.target = o.target;
  s.dtype = o.dtype;
  s.partner = o.partner == "baseline" ? "libtorch" : o.partner;
  s.threads = o.threads == 0 ? 0 : core::thread_count(o.threads);
  s.budget = o.budget;
  return s;
}

void apply(const BenchSettings& s, BenchOptions& o) {
  o.suite = s.suite;
  o.tasks.clear();
  for (const auto& t : s.tasks) o.tasks += (o.tasks.empty() ? "" : ",") + t;
  o.impl = s.impl;
  o.size = s.size;
  o.target = s.target;
  o.dtype = s.dtype;
  o.partner = s.partner;
  o.threads = s.threads;
  o.budget = s.budget;
}

// A set to go on with: its store, its rows so far, and the options it was run with (applied to
// `o`). Every reason it cannot be resumed is a usage error, before anything is measured.
struct Resumed {
  std::unique_ptr<store::Database> db;
  std::vector<store::KeptResult> rows;
};

Resumed open_resume(BenchOptions& o) {
  if (o.peers) throw UsageError("--resume goes on with a bench of one partner, not --peers");
  const auto path = store::store_path(core::state_dir());
  if (!std::filesystem::exists(path))
    throw UsageError(fmt::format("--resume {}: no results kept in {}", o.resume, path.string()));
  auto db = store::open_store(path);
  if (!db) throw UsageError(db.error().message);
  auto set = store::find_result_set(**db, o.resume);
  if (!set) throw UsageError(set.error().message);
  if (!*set)
    throw UsageError(
        fmt::format("--resume {}: no such result (`kforge results` lists them)", o.resume));
  auto settings = settings_for_resume(settings_of(o), settings_of(BenchOptions{}), **set,
                                      eval::describe_cpu().hostname);
  if (!settings) throw UsageError(settings.error().message);
  apply(*settings, o);
  auto rows = store::results_of_set(**db, o.resume);
  if (!rows) throw UsageError(rows.error().message);
  return {std::move(*db), std::move(*rows)};
}

// The file a task's row judged: a kernel of the --impl folder, or the task's own file.
std::string kernel_of(const eval::SuiteRunOptions& so, const std::string& id) {
  if (so.impl != "baseline" && so.impl != "expert" && so.impl != "reference")
    return (std::filesystem::path(so.impl) / (id + so.kernel_extension)).string();
  auto spec = core::load_task(so.suite / id);
  if (!spec) return so.impl;
  if (so.impl == "reference") return spec->reference_path().string();
  return (so.impl == "expert" ? so.expert_path(*spec) : so.baseline_path(*spec)).string();
}

std::string machine_line(const eval::MachineProfile& m, int threads, const std::string& size,
                         const std::string& impl) {
  return fmt::format(
      "machine: {} ({} cores, {}), OpenBLAS core {}{}, {} thread{}, size {}, impl {}", m.cpu_model,
      m.logical_cpus, m.peak_isa.empty() ? "?" : m.peak_isa, m.openblas_core,
      m.openblas_coretype_env.empty() ? "" : " (OPENBLAS_CORETYPE=" + m.openblas_coretype_env + ")",
      threads, threads == 1 ? "" : "s", size.empty() ? "default" : size, impl);
}

// bench_cells(), painted for the table on stdout (the progress lines on stderr stay plain).
std::vector<std::string> painted_row(const eval::SuiteTaskResult& r) {
  auto cells = bench_cells(r);
  cells[1] = paint_verdict(cells[1]);
  if (r.evaluation && r.evaluation->speedup && !r.evaluation->machine_busy)
    cells[7] = paint_ratio(r.evaluation->speedup->median);
  return cells;
}

// What a bare table cannot say: why a roofline reads over 100%, which rows were measured again
// because the machine was busy, and which stayed busy (no speedup: why, and how to get one; the
// reading stays in --json under busy_speedup).
void print_notes(const std::vector<eval::SuiteTaskResult>& results) {
  // Said once for the table: every ratio against libtorch on this machine (or node) carries it.
  std::set<std::string> partner_notes;
  for (const auto& r : results)
    if (r.evaluation && !r.evaluation->partner_note.empty())
      partner_notes.insert(r.evaluation->partner_note);
  for (const auto& note : partner_notes) fmt::print("  the baseline: {}\n", note);
  for (const auto& r : results) {
    if (!r.evaluation) continue;
    const auto& e = *r.evaluation;
    if (!e.roofline_note.empty())
      fmt::print("  {}: roofline {}: {}\n", r.id, format_percent(e.roofline), e.roofline_note);
    std::string again = r.remeasured ? fmt::format(" (re-measured {} time{})", r.remeasured,
                                                   r.remeasured == 1 ? "" : "s")
                                     : "";
    if (e.machine_busy) {
      fmt::print(
          "  {}: stayed busy{}: {}; no speedup: the pairs measured the machine, not the kernel; "
          "bench it again on a quiet machine (--retries N measures busy rows again)\n",
          r.id, again, e.busy_reason);
    } else if (r.remeasured) {
      fmt::print("  {}: quiet when measured again{}\n", r.id, again);
    }
  }
}

// 0 only when something was evaluated and all of it was correct: a run that evaluated nothing,
// or a task that could not be loaded, is not a success.
int bench_status(const std::vector<eval::SuiteTaskResult>& results,
                 const eval::SuiteSummary& summary) {
  int errors = 0;
  for (const auto& r : results) errors += r.status.rfind("error:", 0) == 0;
  if (summary.evaluated == 0) {
    fmt::print(
        stderr,
        "kforge: nothing was evaluated ({} task{} selected, {} could not be loaded or set up)\n",
        results.size(), results.size() == 1 ? "" : "s", errors);
    return 1;
  }
  if (errors)
    fmt::print(stderr, "kforge: {} task{} could not be loaded or set up (see above)\n", errors,
               errors == 1 ? "" : "s");
  return errors == 0 && summary.evaluated == summary.correct ? 0 : 1;
}

int run_bench(BenchOptions o) {
  Resumed resumed;
  if (o.resume) resumed = open_resume(o);
  eval::SuiteRunOptions so;
  so.suite = o.suite.empty() ? core::default_suite_dir() : std::filesystem::path(o.suite);
  if (!std::filesystem::is_directory(so.suite))
    throw UsageError(fmt::format("{}: not a folder", so.suite.string()));
  so.tasks = split_commas(o.tasks);
  so.impl = o.impl;
  if (so.impl != "baseline" && so.impl != "expert" && so.impl != "reference" &&
      !std::filesystem::is_directory(so.impl))
    throw UsageError(fmt::format(
        "--impl must be baseline, expert, reference or a folder of <id>.cpp kernels, not '{}'",
        so.impl));
  so.size = o.size;
  so.dump_dir = o.dump;
  // Before the machine is profiled or anything compiled: a typo must not cost a run.
  if (auto st = eval::check_selection(so); !st) throw UsageError(st.error().message);
  // A resume runs the tasks that have no row yet (none left: nothing runs, the set is shown).
  const std::vector<std::string> selection = so.tasks;
  if (o.resume) {
    std::vector<std::string> all;
    for (const auto& dir : core::list_task_dirs(so.suite)) all.push_back(dir.filename().string());
    so.tasks = tasks_left(settings_of(o), all, resumed.rows);
  }
  const bool nothing_left = o.resume && so.tasks.empty();
  const target::Target& target = target_arg(o.target);
  const std::vector<std::string> peers =
      o.peers ? peer_list(o.peer_set, "--peer-set") : std::vector<std::string>{};
  // A table of peers needs each of them as a partner of this target's kernels (the cuda target
  // runs them on the GPU beside each kernel); the modes' peer reports stay the cpp target's.
  const bool peers_pair = std::all_of(peers.begin(), peers.end(), [&](const std::string& p) {
    return p == "libtorch" || target.accepts_partner(p);
  });
  check_partner_for_target(target, o.partner, o.peers && !peers_pair);
  check_dtype_for_target(target, o.dtype);
  if (!target.baseline_is_kernel() && so.impl == "baseline")
    throw UsageError(
        "--impl baseline on the pallas target is XLA timed against itself: bench --impl expert "
        "(expert_pallas.py) or a folder of <id>.py Pallas kernels");
  if (o.peers && peers.empty()) throw UsageError("--peers needs at least one peer in --peer-set");
  auto lock = make_machine_lock();
  auto machine = this_machine(lock.get());
  if (!machine) throw UsageError(machine.error().message);
  so.eval.machine_lock = lock.get();
  so.eval.quiet_waiter = &quiet_waiter();
  so.eval.cancel = llm::install_interrupt_handler();  // Ctrl-C: each task's step stops at once
  so.eval.threads = o.threads;
  so.eval.time_budget_s = o.budget;
  so.eval.machine = &*machine;
  auto executor = make_executor(o.executor, o.config);
  so.eval.executor = executor.get();
  if (executor) so.parallel = 64;  // the executor bounds the jobs in flight ([executor] max_jobs)
  apply_partner(o.partner, so.eval);
  const int threads = core::thread_count(o.threads);
  // The root's --quiet (or KFORGE_PROGRESS=0) silences the header and the per-task lines too.
  const bool quiet = !progress_enabled();
  std::string header = machine_line(*machine, threads, o.size, o.impl);
  auto compiler = make_compiler();
  // The target's expert and baseline files, its kernels' extension and its judge.
  const auto bound = target::bind(target, toolchain_settings(), o.dtype);
  so.expert_path = [&target](const core::TaskSpec& s) { return target.expert_path(s); };
  so.baseline_path = [&target](const core::TaskSpec& s) { return target.baseline_path(s); };
  so.kernel_extension = target.kernel_extension();
  so.judge = [&](const eval::TaskContext& ctx, const std::string& source, const std::string& name,
                 const eval::EvalOptions& opt) { return bound.evaluate(ctx, source, name, opt); };
  // The result set: a new one, or the one resumed. Each row is kept as its task ends.
  auto stamp = eval::stamp_run(*machine, o.impl, threads);
  BenchSettings kept_settings = settings_of(o);
  kept_settings.suite = std::filesystem::absolute(so.suite).lexically_normal().string();
  kept_settings.tasks = selection;
  kept_settings.target = std::string(target.name());
  kept_settings.threads = threads;
  kept_settings.peers = peers;
  ResultKeeper keeper;
  if (o.resume) {
    keeper = ResultKeeper::resume(std::move(resumed.db), o.resume);
  } else {
    store::ResultSet set = new_result_set("bench", *machine, threads);
    set.suite = kept_settings.suite;
    set.target = kept_settings.target;
    set.size = o.size;
    set.dtype = o.dtype;
    set.impl = kept_settings.impl;
    set.partner =
        o.peers ? "peers: " + fmt::format("{}", fmt::join(peers, ",")) : kept_settings.partner;
    set.settings = to_json(kept_settings).dump();
    keeper = ResultKeeper::start(set);
  }
  auto announce = [&] {
    if (keeper.id() && !quiet)
      fmt::print(
          stderr, "result {}{} (kforge results {})\n", *keeper.id(),
          o.resume ? fmt::format(": {} kept, {} to run", resumed.rows.size(), so.tasks.size()) : "",
          *keeper.id());
  };
  const RowFacts facts{so.impl == "baseline" || so.impl == "expert" || so.impl == "reference"
                           ? so.impl
                           : "candidate",
                       "", kept_settings.partner, o.dtype, o.size};
  auto keep = [&](const eval::SuiteTaskResult& r, const std::string& partner) {
    if (!finished(r)) return;
    RowFacts f = facts;
    f.kernel = kernel_of(so, r.id);
    f.partner = partner;
    keeper.keep(kept_row(0, stamp, r, f));
  };

  if (o.peers) {
    auto py = core::probe_python_env();
    header += fmt::format("; Python {}, torch {}, jax {}", py.python_version,
                          py.torch_version.empty() ? "missing" : py.torch_version,
                          py.jax_version.empty() ? "missing" : py.jax_version);
    if (!quiet) fmt::print(stderr, "{}\n", header);
    announce();
    PeersRun run{so, peers, o.retries, o.json, header, threads};
    run.on_cell = keep;
    const int status = run_bench_peers(run, *machine);
    keeper.finish(so.eval.cancel && so.eval.cancel->load());
    return status;
  }
  if (o.partner != "libtorch" && o.partner != "baseline") header += ", partner " + o.partner;
  so.eval.dtype = o.dtype;
  header += target.run_header(o.dtype);  // the target's backend, before any number
  if (!quiet) fmt::print(stderr, "{}\n", header);
  announce();

  auto start = std::chrono::steady_clock::now();
  std::vector<eval::SuiteTaskResult> results;
  if (!nothing_left)
    results = eval::run_suite(so, *compiler, [&](const eval::SuiteTaskResult& r, int i, int n) {
      keep(r, kept_settings.partner);
      if (quiet) return;
      fmt::print(stderr, "{}\n", bench_progress_line(r, i, n));
    });
  // Busy rows again, each after evaluate's own wait for quiet: a speedup read busy is no result.
  eval::remeasure_busy(
      results, o.retries,
      [&](const eval::SuiteTaskResult& r) { return eval::rerun_task(so, *compiler, r.id); },
      [&](const eval::SuiteTaskResult& r, int attempt) {
        keep(r, kept_settings.partner);
        if (quiet) return;
        fmt::print(stderr, "[again {}/{}] {:<44} {}\n", attempt, o.retries, r.id,
                   r.busy() ? "still busy: " + r.evaluation->busy_reason : "quiet");
      });
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const bool interrupted = so.eval.cancel && so.eval.cancel->load();
  keeper.finish(interrupted);
  if (interrupted && keeper.id())
    fmt::print(
        stderr,
        "kforge bench: the rows done are kept in result {}; go on with: kforge bench --resume {}\n",
        *keeper.id(), *keeper.id());
  // A resumed set is shown whole: the rows kept before, then this run's, in task order.
  std::vector<nlohmann::json> kept_json;  // as each row was kept ({"row", "task"})
  kept_json.resize(results.size());
  for (const auto& row : resumed.rows) {
    results.push_back(restored(row));
    kept_json.push_back(nlohmann::json::parse(row.row, nullptr, false));
  }
  if (!resumed.rows.empty()) {
    std::vector<std::size_t> order(results.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return results[a].id < results[b].id; });
    std::vector<eval::SuiteTaskResult> sorted;
    std::vector<nlohmann::json> sorted_json;
    for (auto i : order) {
      sorted.push_back(std::move(results[i]));
      sorted_json.push_back(std::move(kept_json[i]));
    }
    results = std::move(sorted);
    kept_json = std::move(sorted_json);
  }
  auto summary = eval::summarize_suite(results, seconds);
  if (executor && !quiet) fmt::print(stderr, "{}\n", executor->summary());

  if (o.json) {
    nlohmann::json tasks = nlohmann::json::array(), rows = nlohmann::json::array();
    for (std::size_t i = 0; i < results.size(); ++i) {
      const auto& k = kept_json[i];
      const bool old = k.is_object() && k.contains("row") && k.contains("task");
      tasks.push_back(old ? k["task"] : eval::to_json(results[i]));
      rows.push_back(old ? k["row"] : eval::to_json(eval::make_row(stamp, results[i], o.size)));
    }
    fmt::print("{}\n", nlohmann::json{{"schema", "kforge.bench/2"},
                                      {"result_id", keeper.id() ? nlohmann::json(*keeper.id())
                                                                : nlohmann::json(nullptr)},
                                      {"kforge_version", stamp.kforge_version},
                                      {"git_sha", stamp.git_sha},
                                      {"timestamp", stamp.timestamp},
                                      {"machine", eval::to_json(*machine)},
                                      {"threads", threads},
                                      {"impl", o.impl},
                                      {"size", o.size},
                                      {"rows", rows},
                                      {"tasks", tasks},
                                      {"summary", eval::to_json(summary)}}
                           .dump(2));
  } else if (o.csv) {
    fmt::print("{}\n", eval::csv_header());
    for (const auto& r : results)
      fmt::print("{}\n", eval::to_csv(eval::make_row(stamp, r, o.size)));
  } else {
    Table t(
        {"task", "verdict", "median ms", "p10–p90 ms", "GFLOP/s", "GB/s", "roofline", "speedup"},
        {false, false, true, true, true, true, true, true});
    for (const auto& r : results) t.add(painted_row(r));
    fmt::print("{}\n{}", header, t.render());
    fmt::print(
        "\n{}, {} evaluated, {} correct; fast_1 {}, fast_1.5 {}, geomean speedup {} (over "
        "correct tasks{}); {:.0f} s\n",
        count_of(summary.tasks, "task"), summary.evaluated, summary.correct,
        summary.fast_1 ? format_percent(*summary.fast_1) : "n/a",
        summary.fast_1_5 ? format_percent(*summary.fast_1_5) : "n/a",
        summary.geomean_speedup ? format_ratio(*summary.geomean_speedup) : "n/a",
        summary.busy ? fmt::format(", leaving out {} timed busy", summary.busy) : "",
        summary.seconds);
    for (const auto& r : results)
      if (r.evaluation && !r.evaluation->correct())
        fmt::print("  {}: {}\n", r.id, reason_line(r.evaluation->reason));
    print_notes(results);
  }
  return bench_status(results, summary);
}

}  // namespace

void add_bench(CommandLine& cmd) {
  auto o = std::make_shared<BenchOptions>();
  cmd.bind("suite", o->suite);
  cmd.bind("tasks", o->tasks);
  cmd.bind("impl", o->impl);
  cmd.bind("size", o->size);
  cmd.bind("threads", o->threads);
  cmd.bind("budget", o->budget);
  cmd.bind("retries", o->retries);
  cmd.bind("dump", o->dump);
  cmd.bind("json", o->json);
  cmd.bind("target", o->target);
  cmd.bind("csv", o->csv);
  cmd.bind("config", o->config);
  cmd.bind("executor", o->executor);
  cmd.bind("partner", o->partner);
  cmd.bind("peers", o->peers);
  cmd.bind("peer-set", o->peer_set);
  cmd.bind("dtype", o->dtype);
  cmd.bind("resume-bench", o->resume);
  cmd.exclusive("csv", "json");
  cmd.exclusive("peers", "csv");
  cmd.exclusive("peers", "partner");
  cmd.on_run([o] { return run_bench(*o); });
}

}  // namespace kforge::cli
