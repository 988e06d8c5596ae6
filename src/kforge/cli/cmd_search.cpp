// kforge search TASK [--algorithm parallel|beam|evolve] [--jobs N] [--seed S] ...   a new search
// kforge search --resume ID [--jobs N]                                           continue a killed
// one kforge search --suite DIR [--tasks a,b] --out DIR [--parallel-tasks K] ...    one search per
// task,
//                                                                               best kernels to
//                                                                               DIR/<id>.cpp
#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "kforge/cli/agent_stack.h"
#include "kforge/cli/colour.h"
#include "kforge/cli/commands.h"
#include "kforge/cli/common.h"
#include "kforge/cli/executor_setup.h"
#include "kforge/cli/mode_target.h"
#include "kforge/cli/table.h"
#include "kforge/core/fs.h"
#include "kforge/core/paths.h"
#include "kforge/core/task_loader.h"
#include "kforge/core/threads.h"
#include "kforge/eval/suite_run.h"
#include "kforge/llm/interrupt.h"
#include "kforge/modes/search_session.h"

namespace kforge::cli {
namespace {

// One readable line per task of a --suite search: its best speedup, or why it has none.
std::string suite_progress_line(const nlohmann::json& row) {
  std::string line = row.value("task", "?");
  if (row.contains("error")) return line + ": failed: " + row["error"].get<std::string>();
  if (row.contains("speedup") && row["speedup"].is_number())
    return line + fmt::format(": best {:.2f}x the baseline", row["speedup"].get<double>());
  return line + ": no correct kernel";
}

struct SearchCliOptions {
  std::string task, size, model, config, prompts, strategies, start, resume, suite, tasks, out;
  std::string executor;  // --executor
  std::string beat = "fastest";
  std::string target, dtype;  // --target, --dtype ("": not given; a new search takes cpp, f32)
  modes::SearchOptions search;
  int threads = 0, parallel_tasks = 1;
  double max_usd = 0;
  std::int64_t max_tokens = 0;
  bool json = false, stream = false;
  bool quiet() const { return !progress_enabled(); }  // the root's --quiet, or KFORGE_PROGRESS=0
};

std::string node_label(const nlohmann::json& n) {
  return n["verdict"].is_null() ? "—" : paint_verdict(n["verdict"].get<std::string>());
}

struct SearchOutcome {
  modes::SearchResult result;
  std::string run_id;
  std::filesystem::path dir;
  std::string best_file;  // best.cpp, best.cu, best.py
  llm::SessionTotals totals;
  std::string partner;  // the partner aimed at (--beat), as reports name it
  // The whole of this task's search as the user waited for it: the baseline measured before,
  // the search (result.wall_s), report.md and its peers after.
  double total_s = 0;
};

// The closing lines: the table of nodes, how the search stopped, the best kernel with its speedup
// over the partner aimed at, and where report.md is.
void print_result(const SearchOutcome& outcome) {
  const auto& r = outcome.result;
  const auto& run_id = outcome.run_id;
  const auto& dir = outcome.dir;
  const auto& best_file = outcome.best_file;
  const auto& t = outcome.totals;
  auto j = modes::to_json(r);
  // A roofline above 100% comes with its reason (a cache-resident working set, fewer operations
  // than the cost formula counts), where it is printed.
  Table table({"node", "parent", "depth", "strategy", "verdict", "ms", "speedup", "roofline",
               "roofline reason"},
              {true, true, true, false, false, true, true, true, false});
  for (const auto& n : j["nodes"])
    table.add({std::to_string(n["id"].get<long>()),
               n["parent"].is_null() ? "" : std::to_string(n["parent"].get<long>()),
               std::to_string(n["depth"].get<int>()), n["strategy"].get<std::string>(),
               node_label(n),
               n["median_ms"].is_null() ? "" : format_ms(n["median_ms"].get<double>()),
               n["speedup"].is_null() ? "" : paint_ratio(n["speedup"].get<double>()),
               n["roofline"].is_null() ? "" : format_percent(n["roofline"].get<double>()),
               n["roofline_reason"].get<std::string>()});
  fmt::print(
      "{}\nsearch {}: {} ({}); {} expansions run, {} replayed from the store; {:.0f} s "
      "searching, {:.0f} s of it waiting for the timing lock; {:.0f} s in all with the baseline "
      "before and report.md after\n",
      table.render(), run_id, store::run_state_name(r.state), r.stop_reason, r.expansions_run,
      r.expansions_replayed, r.wall_s, r.lock_wait_s, outcome.total_s);
  // The best by its number within the run, as the table above and `kforge export` name it.
  const store::NodeRecord* best = nullptr;
  for (const auto& n : r.nodes)
    if (r.best && n.id == *r.best) best = &n;
  if (best && r.decided_by == modes::kDecidedByCorrectness)
    fmt::print("best: node {}, the first correct kernel (decided by {}; no speedup) → {}\n",
               best->number, r.decided_by, (dir / best_file).string());
  else if (best)
    fmt::print("best: node {}, {} ms, {} → {}\n", best->number,
               best->median_ms ? format_ms(*best->median_ms) : std::string("–"),
               best->speedup ? fmt::format("{} over {}, the partner it aimed at",
                                           format_ratio(*best->speedup), outcome.partner)
                             : fmt::format("no speedup figure over {}, the partner it aimed at "
                                           "(timed on a busy machine)",
                                           outcome.partner),
               (dir / best_file).string());
  if (!r.best) fmt::print("no correct kernel was found\n");
  if (std::filesystem::exists(dir / "report.md"))
    fmt::print("report: {}\n", (dir / "report.md").string());
  fmt::print("model use: {} calls, {} tokens in, {} out, ${:.4f}; graph: kforge graph {}\n",
             t.calls, format_tokens(t.usage.input_tokens, t.estimated),
             format_tokens(t.usage.output_tokens, t.estimated), t.cost_usd, run_id);
  if (t.estimated) fmt::print("{}\n", kEstimatedTokensNote);
}

// --json of one search: the result, where it lives, and the target its kernels are for.
nlohmann::json result_json(const SearchOutcome& outcome, const target::BoundTarget& bound) {
  auto j = modes::to_json(outcome.result);
  j["session"] = outcome.run_id;
  j["dir"] = outcome.dir.string();
  j["report"] = std::filesystem::exists(outcome.dir / "report.md")
                    ? nlohmann::json((outcome.dir / "report.md").string())
                    : nlohmann::json(nullptr);
  j["target"] = std::string(bound.target().name());
  j["best_file"] = outcome.best_file;
  j["total_s"] = outcome.total_s;
  return j;
}

// The target a search's kernels are written for: --target and --dtype for a new search; for
// --resume the ones stored with the run (a resume cannot change them: a usage error).
target::BoundTarget search_target(const SearchCliOptions& o, const modes::SearchOptions* stored,
                                  const std::string& run_id) {
  std::string name = o.target, dtype = o.dtype;
  if (stored) {
    const std::string kept = stored->target.empty() ? "cpp" : stored->target;
    if (!name.empty() && name != kept)
      throw UsageError(fmt::format(
          "kforge search --resume {}: the search was started with --target {}; a resume keeps its "
          "target (drop --target {})",
          run_id, kept, name));
    if (!dtype.empty() && dtype != stored->dtype)
      throw UsageError(fmt::format(
          "kforge search --resume {}: the search was started with --dtype {}; a resume keeps it",
          run_id, stored->dtype));
    name = stored->target;
    dtype = stored->dtype;
  }
  return bind_mode_target("search", name, dtype, o.beat);
}

// One search (new or resumed) of one task.
SearchOutcome search_one(const SearchCliOptions& o, const core::TaskSpec& spec,
                         const std::string& size, modes::SearchOptions so,
                         const std::string& resume_id, target::BoundTarget bound,
                         eval::MachineLock& lock, const eval::MachineProfile& machine) {
  const auto started = std::chrono::steady_clock::now();
  auto compiler = make_compiler();
  auto ctx = eval::TaskContext::create(spec, size, *compiler, core::state_dir());
  if (!ctx) throw UsageError(ctx.error().message);
  AgentStackOptions stack_options{
      fmt::format("kforge search {} --algorithm {}{}", spec.id, so.algorithm, target_words(bound)),
      so.model,
      o.config,
      o.prompts,
      resume_id,
      o.max_usd,
      o.max_tokens,
      o.stream};
  stack_options.target = &bound.target();
  auto stack = make_agent_stack(stack_options);
  // The target's own strategies (strategies/pallas.toml, strategies/cuda.toml) for its kernels.
  auto strategies =
      modes::load_strategies(bound.target().agent_material().strategies_file, so.strategies_file);
  if (!strategies) throw UsageError(strategies.error().message);

  modes::SearchEnv env;
  env.ctx = &*ctx;
  env.machine = &machine;
  env.agents = &stack->env;
  env.state_dir = core::state_dir();
  env.run_id = stack->session->id();
  env.eval.threads = core::thread_count(o.threads);
  env.eval.machine = &machine;
  env.eval.machine_lock = &lock;
  env.eval.cancel = llm::install_interrupt_handler();  // installed with the agents; the same flag
  env.eval.quiet_waiter = &quiet_waiter();
  // One executor per search, scoped by its run id: a resumed search reuses its own finished jobs.
  auto executor = make_executor(o.executor, o.config, env.run_id);
  env.eval.executor = executor.get();
  struct Summary {
    eval::Executor* x;
    ~Summary() {
      if (x && progress_enabled()) fmt::print(stderr, "{}\n", x->summary());
    }
  } summary_line{executor.get()};
  // The same door auto enters by.
  enter_mode_target(
      bound, mode_partner(bound, o.beat, spec.id, ctx->task().size, env.eval.threads, machine),
      lock, env.eval);
  env.target = bound;
  so.target = recorded_target(bound);
  so.dtype = bound.dtype();
  env.strategies = *strategies;
  if (!o.quiet())
    env.say = [id = spec.id](std::string_view m) { fmt::print(stderr, "  … {}: {}\n", id, m); };

  if (resume_id.empty()) {
    if (auto st = modes::start_search_run(env, so, spec.id, ctx->task().size); !st)
      throw UsageError(st.error().message);
  }
  // The id first, so that a search interrupted in its first minute can be found and resumed: not a
  // progress line, so --quiet (or KFORGE_PROGRESS=0) keeps it.
  fmt::print(stderr, "kforge search {}: run {} (resume with: kforge search --resume {})\n", spec.id,
             env.run_id, env.run_id);
  // The baseline, once for the whole search. Another target's baseline (pallas: XLA; cuda:
  // PyTorch eager on the device) is paired with every kernel by the target's judge instead.
  if (bound.target().baseline_timed_alone()) {
    eval::EvalOptions timed = env.eval;
    timed.time_budget_s = so.expansion.time_budget_s;
    auto baseline = modes::measure_baseline_ms(*ctx, timed);
    // The baseline is the task's own trusted code: when it cannot be built or fails its check,
    // the suite is at fault, not the command.
    if (!baseline) throw InternalError(baseline.error().message);
    so.expansion.baseline_ms = *baseline;
  }

  auto result = modes::run_search(env, so);
  if (auto st = modes::finish_search_run(env, result); !st)
    fmt::print(stderr, "kforge search: {}\n", st.error().message);
  return {result,
          env.run_id,
          core::state_dir() / "sessions" / env.run_id,
          env.target.best_file(),
          stack->session->totals(),
          env.target.target().baseline_name(env.eval),
          std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count()};
}

int run_search_command(SearchCliOptions o) {
  // Mistakes in what was asked for are refused before the machine is profiled or locked.
  if (!o.start.empty()) {
    auto text = core::read_source(o.start, core::state_dir());
    if (!text) throw UsageError(text.error().message);
    o.search.start_source = *text;
  }
  if (!o.suite.empty()) {
    eval::SuiteRunOptions selection;
    selection.suite = o.suite;
    selection.tasks = split_commas(o.tasks);
    selection.size = o.size;
    if (auto st = eval::check_selection(selection); !st) throw UsageError(st.error().message);
  }
  // A new search's target is refused here when it cannot run (cuda without a device): before the
  // machine is profiled and before any model call. A resume takes the run's own, below.
  const auto bound = o.resume.empty() ? search_target(o, nullptr, "") : target::BoundTarget{};
  auto machine_lock = make_machine_lock();
  auto& lock = *machine_lock;
  auto machine = this_machine(&lock);
  if (!machine) throw UsageError(machine.error().message);
  (void)make_executor(o.executor, o.config);  // a bad [executor] is refused before any work
  o.search.model = o.model;
  o.search.strategies_file =
      o.strategies.empty() ? "" : std::filesystem::absolute(o.strategies).string();

  if (!o.resume.empty()) {
    auto so = modes::prepare_resume(core::state_dir(), o.resume, o.search.jobs);
    if (!so) throw UsageError(so.error().message);
    if (!o.model.empty()) so->model = o.model;
    const auto resumed = search_target(o, &*so, o.resume);
    auto journal = modes::RunJournal::open(core::state_dir(), o.resume);
    auto run = store::find_run(journal->db(), o.resume);
    auto spec = load_task_arg((*run)->task);
    auto outcome = search_one(o, spec, (*run)->size, *so, o.resume, resumed, lock, *machine);
    if (o.json)
      fmt::print("{}\n", result_json(outcome, resumed).dump(2));
    else
      print_result(outcome);
    return outcome.result.best ? 0 : 1;
  }

  if (!o.suite.empty()) {  // batch: one search per task, best kernels into --out
    if (o.out.empty()) throw UsageError("--suite needs --out DIR for the best kernels");
    std::vector<std::filesystem::path> dirs;
    auto wanted = split_commas(o.tasks);
    for (const auto& d : core::list_task_dirs(o.suite))
      if (wanted.empty() ||
          std::find(wanted.begin(), wanted.end(), d.filename().string()) != wanted.end())
        dirs.push_back(d);
    std::filesystem::create_directories(o.out);
    std::atomic<std::size_t> next{0};
    std::mutex mu;
    nlohmann::json summary = nlohmann::json::array();
    auto worker = [&] {
      for (std::size_t i; (i = next++) < dirs.size();) {
        auto spec = core::load_task(dirs[i]);
        nlohmann::json row = {{"task", dirs[i].filename().string()}};
        if (!spec)
          row["error"] = spec.error().message;
        else {
          try {
            auto outcome = search_one(o, *spec, o.size, o.search, "", bound, lock, *machine);
            row["run"] = outcome.run_id;
            row["state"] = store::run_state_name(outcome.result.state);
            row["best"] = outcome.result.best ? nlohmann::json(*outcome.result.best)
                                              : nlohmann::json(nullptr);
            if (outcome.result.best)
              for (const auto& n : outcome.result.nodes)
                if (n.id == *outcome.result.best) {
                  if (auto st = core::write_atomic(
                          std::filesystem::path(o.out) /
                              (spec->id +
                               std::filesystem::path(outcome.best_file).extension().string()),
                          n.source);
                      !st)
                    row["error"] = st.error().message;
                  row["speedup"] = n.speedup ? nlohmann::json(*n.speedup) : nlohmann::json(nullptr);
                }
          } catch (const UsageError& e) {
            row["error"] = e.what();
          } catch (
              const InternalError& e) {  // one task's broken baseline ends that task, not the batch
            row["error"] = e.what();
          }
        }
        std::lock_guard g(mu);
        if (!o.quiet())
          fmt::print(stderr, "[{}/{}] {}\n", summary.size() + 1, dirs.size(),
                     suite_progress_line(row));
        summary.push_back(row);
      }
    };
    std::vector<std::thread> threads;
    for (int t = 0; t < std::max(1, o.parallel_tasks); ++t) threads.emplace_back(worker);
    for (auto& t : threads) t.join();
    if (o.json)
      fmt::print("{}\n", summary.dump(2));
    else
      fmt::print("best kernels in {}; score them with: kforge bench --impl {}\n", o.out, o.out);
    return 0;
  }

  if (o.task.empty()) throw UsageError("kforge search needs a TASK, --resume ID, or --suite DIR");
  auto spec = load_task_arg(o.task);
  auto outcome = search_one(o, spec, o.size, o.search, "", bound, lock, *machine);
  if (o.json) {
    auto j = result_json(outcome, bound);
    j["cost_usd"] = outcome.totals.cost_usd;
    j["tokens_estimated"] = outcome.totals.estimated;
    fmt::print("{}\n", j.dump(2));
  } else {
    print_result(outcome);
  }
  return outcome.result.best ? 0 : 1;
}

}  // namespace

void add_search(CommandLine& cmd) {
  auto o = std::make_shared<SearchCliOptions>();
  auto& s = o->search;
  cmd.bind("task", o->task);
  cmd.bind("resume", o->resume);
  cmd.bind("suite", o->suite);
  cmd.bind("tasks", o->tasks);
  cmd.bind("out-kernels", o->out);
  cmd.bind("parallel-tasks", o->parallel_tasks);
  cmd.bind("algorithm", s.algorithm);
  cmd.bind("model", o->model);
  cmd.bind("size", o->size);
  cmd.bind("jobs", s.jobs);
  cmd.bind("seed", s.seed);
  cmd.bind("width", s.width);
  cmd.bind("beam-size", s.beam_size);
  cmd.bind("branches", s.branches);
  cmd.bind("depth", s.depth);
  cmd.bind("keep-factor", s.keep_factor);
  cmd.bind("generations", s.generations);
  cmd.bind("population", s.population);
  cmd.bind("islands", s.islands);
  cmd.bind("exploit", s.exploit);
  cmd.bind("crossover", s.crossover);
  cmd.bind("iterations-per-expansion", s.iterations_per_expansion);
  cmd.bind("debug-attempts", s.expansion.debug_attempts);
  cmd.bind("tune-budget", s.expansion.tune.budget);
  cmd.bind("tune-rounds", s.expansion.tune.rounds);
  cmd.bind("budget", s.expansion.time_budget_s);
  cmd.bind("strategies", o->strategies);
  cmd.bind("start", o->start);
  cmd.bind("max-usd", o->max_usd);
  cmd.bind("max-tokens", o->max_tokens);
  cmd.bind("threads", o->threads);
  cmd.bind("beat", o->beat);
  cmd.bind("prompts", o->prompts);
  cmd.bind("config", o->config);
  cmd.bind("executor", o->executor);
  cmd.bind("stream", o->stream);
  cmd.bind("json", o->json);
  cmd.bind("target", o->target);
  cmd.bind("dtype", o->dtype);
  cmd.on_run([o] { return run_search_command(*o); });
}

}  // namespace kforge::cli
