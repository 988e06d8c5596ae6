// kforge search TASK [--algorithm parallel|beam|evolve] [--jobs N] [--seed S] ...   a new search
// kforge search --resume ID [--jobs N]                                           continue a killed one
// kforge search --suite DIR [--tasks a,b] --out DIR [--parallel-tasks K] ...    one search per task,
//                                                                               best kernels to DIR/<id>.cpp
#include <fmt/format.h>

#include <atomic>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "kforge/cli/agent_stack.h"
#include "kforge/cli/colour.h"
#include "kforge/cli/commands.h"
#include "kforge/cli/common.h"
#include "kforge/cli/table.h"
#include "kforge/core/fs.h"
#include "kforge/core/paths.h"
#include "kforge/core/task_loader.h"
#include "kforge/eval/suite_run.h"
#include "kforge/modes/search_session.h"

namespace kforge::cli {
namespace {

// One readable line per task of a --suite search: its best speedup, or why it has none.
std::string suite_progress_line(const nlohmann::json& row) {
  std::string line = row.value("task", "?");
  if (row.contains("error")) return line + ": failed: " + row["error"].get<std::string>();
  if (row.contains("speedup") && row["speedup"].is_number()) return line + fmt::format(": best {:.2f}x the baseline", row["speedup"].get<double>());
  return line + ": no correct kernel";
}

struct SearchCliOptions {
  std::string task, size, model, config, prompts, strategies, start, resume, suite, tasks, out;
  modes::SearchOptions search;
  int threads = 0, parallel_tasks = 1;
  double max_usd = 0;
  std::int64_t max_tokens = 0;
  bool json = false, stream = false, quiet = false;
};

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s + ",") {
    if (c == ',') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  return out;
}

std::string node_label(const nlohmann::json& n) {
  return n["verdict"].is_null() ? "—" : paint_verdict(n["verdict"].get<std::string>());
}

void print_result(const modes::SearchResult& r, const std::string& run_id, const std::filesystem::path& dir, const llm::SessionTotals& t) {
  auto j = modes::to_json(r);
  // A roofline above 100% comes with its reason (a cache-resident working set, fewer operations
  // than the cost formula counts), where it is printed.
  Table table({"node", "parent", "depth", "strategy", "verdict", "ms", "speedup", "roofline", "roofline reason"},
              {true, true, true, false, false, true, true, true, false});
  for (const auto& n : j["nodes"])
    table.add({std::to_string(n["id"].get<long>()), n["parent"].is_null() ? "" : std::to_string(n["parent"].get<long>()),
               std::to_string(n["depth"].get<int>()), n["strategy"].get<std::string>(), node_label(n),
               n["median_ms"].is_null() ? "" : format_ms(n["median_ms"].get<double>()),
               n["speedup"].is_null() ? "" : paint_ratio(n["speedup"].get<double>()),
               n["roofline"].is_null() ? "" : format_percent(n["roofline"].get<double>()), n["roofline_reason"].get<std::string>()});
  fmt::print("{}\nsearch {}: {} ({}); {} expansions run, {} replayed from the store; {:.0f} s, {:.0f} s of it waiting for the timing lock\n",
             table.render(), run_id, store::run_state_name(r.state), r.stop_reason, r.expansions_run, r.expansions_replayed, r.wall_s, r.lock_wait_s);
  if (r.best) fmt::print("best: node {} → {}\n", *r.best, (dir / "best.cpp").string());
  else fmt::print("no correct kernel was found\n");
  fmt::print("model use: {} calls, {} tokens in, {} out, ${:.4f}; graph: kforge graph {}\n", t.calls, format_tokens(t.usage.input_tokens, t.estimated),
             format_tokens(t.usage.output_tokens, t.estimated), t.cost_usd, run_id);
  if (t.estimated) fmt::print("{}\n", kEstimatedTokensNote);
}

struct SearchOutcome {
  modes::SearchResult result;
  std::string run_id;
  std::filesystem::path dir;
  llm::SessionTotals totals;
};

// One search (new or resumed) of one task.
SearchOutcome search_one(const SearchCliOptions& o, const core::TaskSpec& spec, const std::string& size, modes::SearchOptions so,
                         const std::string& resume_id, eval::MachineLock& lock, const eval::MachineProfile& machine) {
  auto compiler = make_compiler();
  auto ctx = eval::TaskContext::create(spec, size, *compiler, core::state_dir());
  if (!ctx) throw UsageError(ctx.error().message);
  auto stack = make_agent_stack({fmt::format("kforge search {} --algorithm {}", spec.id, so.algorithm), so.model, o.config, o.prompts, resume_id,
                                 o.max_usd, o.max_tokens, o.stream});
  auto strategies = modes::load_strategies(modes::default_strategies_file(), so.strategies_file);
  if (!strategies) throw UsageError(strategies.error().message);

  modes::SearchEnv env;
  env.ctx = &*ctx;
  env.machine = &machine;
  env.agents = &stack->env;
  env.state_dir = core::state_dir();
  env.run_id = stack->session->id();
  env.eval.threads = o.threads > 0 ? o.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  env.eval.machine = &machine;
  env.eval.machine_lock = &lock;
  env.eval.quiet_waiter = &quiet_waiter();
  env.strategies = *strategies;
  if (!o.quiet) env.say = [id = spec.id](std::string_view m) { fmt::print(stderr, "  … {}: {}\n", id, m); };

  if (resume_id.empty()) {
    if (auto st = modes::start_search_run(env, so, spec.id, ctx->task().size); !st) throw UsageError(st.error().message);
  }
  // The id first, so that a search interrupted in its first minute can be found and resumed.
  if (!o.quiet) fmt::print(stderr, "kforge search {}: run {} (resume with: kforge search --resume {})\n", spec.id, env.run_id, env.run_id);
  // The baseline, once for the whole search.
  eval::EvalOptions timed = env.eval;
  timed.time_budget_s = so.expansion.time_budget_s;
  auto baseline = modes::measure_baseline_ms(*ctx, timed);
  if (!baseline) throw UsageError(baseline.error().message);
  so.expansion.baseline_ms = *baseline;

  auto result = modes::run_search(env, so);
  if (auto st = modes::finish_search_run(env, result); !st) fmt::print(stderr, "kforge search: {}\n", st.error().message);
  return {result, env.run_id, core::state_dir() / "sessions" / env.run_id, stack->session->totals()};
}

int run_search_command(SearchCliOptions o) {
  // Mistakes in what was asked for are refused before the machine is profiled or locked.
  if (!o.start.empty()) {
    auto text = core::read_source(o.start);
    if (!text) throw UsageError(text.error().message);
    o.search.start_source = *text;
  }
  if (!o.suite.empty()) {
    eval::SuiteRunOptions selection;
    selection.suite = o.suite;
    selection.tasks = split_list(o.tasks);
    selection.size = o.size;
    if (auto st = eval::check_selection(selection); !st) throw UsageError(st.error().message);
  }
  auto machine_lock = make_machine_lock();
  auto& lock = *machine_lock;
  auto machine = this_machine(&lock);
  if (!machine) throw UsageError(machine.error().message);
  o.search.model = o.model;
  o.search.strategies_file = o.strategies.empty() ? "" : std::filesystem::absolute(o.strategies).string();

  if (!o.resume.empty()) {
    auto so = modes::prepare_resume(core::state_dir(), o.resume, o.search.jobs);
    if (!so) throw UsageError(so.error().message);
    if (!o.model.empty()) so->model = o.model;
    auto journal = modes::RunJournal::open(core::state_dir(), o.resume);
    auto run = store::find_run(journal->db(), o.resume);
    auto spec = load_task_arg((*run)->task);
    auto outcome = search_one(o, spec, (*run)->size, *so, o.resume, lock, *machine);
    if (o.json) fmt::print("{}\n", modes::to_json(outcome.result).dump(2));
    else print_result(outcome.result, outcome.run_id, outcome.dir, outcome.totals);
    return outcome.result.best ? 0 : 1;
  }

  if (!o.suite.empty()) {  // batch: one search per task, best kernels into --out
    if (o.out.empty()) throw UsageError("--suite needs --out DIR for the best kernels");
    std::vector<std::filesystem::path> dirs;
    auto wanted = split_list(o.tasks);
    for (const auto& d : core::list_task_dirs(o.suite))
      if (wanted.empty() || std::find(wanted.begin(), wanted.end(), d.filename().string()) != wanted.end()) dirs.push_back(d);
    std::filesystem::create_directories(o.out);
    std::atomic<std::size_t> next{0};
    std::mutex mu;
    nlohmann::json summary = nlohmann::json::array();
    auto worker = [&] {
      for (std::size_t i; (i = next++) < dirs.size();) {
        auto spec = core::load_task(dirs[i]);
        nlohmann::json row = {{"task", dirs[i].filename().string()}};
        if (!spec) row["error"] = spec.error().message;
        else {
          try {
            auto outcome = search_one(o, *spec, o.size, o.search, "", lock, *machine);
            row["run"] = outcome.run_id;
            row["state"] = store::run_state_name(outcome.result.state);
            row["best"] = outcome.result.best ? nlohmann::json(*outcome.result.best) : nlohmann::json(nullptr);
            if (outcome.result.best)
              for (const auto& n : outcome.result.nodes)
                if (n.id == *outcome.result.best) {
                  (void)core::write_atomic(std::filesystem::path(o.out) / (spec->id + ".cpp"), n.source);
                  row["speedup"] = n.speedup ? nlohmann::json(*n.speedup) : nlohmann::json(nullptr);
                }
          } catch (const UsageError& e) {
            row["error"] = e.what();
          }
        }
        std::lock_guard g(mu);
        if (!o.quiet) fmt::print(stderr, "[{}/{}] {}\n", summary.size() + 1, dirs.size(), suite_progress_line(row));
        summary.push_back(row);
      }
    };
    std::vector<std::thread> threads;
    for (int t = 0; t < std::max(1, o.parallel_tasks); ++t) threads.emplace_back(worker);
    for (auto& t : threads) t.join();
    if (o.json) fmt::print("{}\n", summary.dump(2));
    else fmt::print("best kernels in {}; score them with: kforge bench --impl {}\n", o.out, o.out);
    return 0;
  }

  if (o.task.empty()) throw UsageError("kforge search needs a TASK, --resume ID, or --suite DIR");
  auto spec = load_task_arg(o.task);
  auto outcome = search_one(o, spec, o.size, o.search, "", lock, *machine);
  if (o.json) {
    auto j = modes::to_json(outcome.result);
    j["session"] = outcome.run_id;
    j["dir"] = outcome.dir.string();
    j["cost_usd"] = outcome.totals.cost_usd;
    j["tokens_estimated"] = outcome.totals.estimated;
    fmt::print("{}\n", j.dump(2));
  } else {
    print_result(outcome.result, outcome.run_id, outcome.dir, outcome.totals);
  }
  return outcome.result.best ? 0 : 1;
}

}  // namespace

void add_search(CLI::App& cmd, int& exit_status) {
  auto o = std::make_shared<SearchCliOptions>();
  auto& s = o->search;
  cmd.add_option("task", o->task, "Task folder or id")->type_name(kTaskType);
  cmd.add_option("--resume", o->resume, "Continue the search with this id (from `kforge sessions`)");
  cmd.add_option("--suite", o->suite, "Search every task of this suite folder");
  cmd.add_option("--tasks", o->tasks, "With --suite: comma-separated ids");
  cmd.add_option("--out", o->out, "With --suite: write each task's best kernel to OUT/<id>.cpp");
  cmd.add_option("--parallel-tasks", o->parallel_tasks, "With --suite: tasks searched at once (default 1)");
  cmd.add_option("--algorithm", s.algorithm, "parallel, beam (default) or evolve")->check(CLI::IsMember({"parallel", "beam", "evolve"}));
  cmd.add_option("--model", o->model, "PROVIDER:MODEL for every role");
  cmd.add_option("--size", o->size, "Size preset")->type_name(kSizeType);
  cmd.add_option("--jobs", s.jobs, "Expansions in flight at once (model calls and compiles overlap; timing never does)");
  cmd.add_option("--seed", s.seed, "Seed for every random choice (default 1)");
  cmd.add_option("--width", s.width, "parallel: expansions from the root (default 4)");
  cmd.add_option("--beam-size", s.beam_size, "beam: nodes kept per depth (default 2)");
  cmd.add_option("--branches", s.branches, "beam: children per beam node (default 3)");
  cmd.add_option("--depth", s.depth, "beam: depth (default 2)");
  cmd.add_option("--keep-factor", s.keep_factor, "beam: a child enters the beam only if its time is at most F × its parent's (default 1.2)");
  cmd.add_option("--generations", s.generations, "evolve: generations (default 3)");
  cmd.add_option("--population", s.population, "evolve: expansions per island per generation (default 2)");
  cmd.add_option("--islands", s.islands, "evolve: islands (default 2)");
  cmd.add_option("--exploit", s.exploit, "evolve: share of parents chosen as their island's best (default 0.6)");
  cmd.add_option("--crossover", s.crossover, "evolve: share of children made by combining two parents (default 0.2)");
  cmd.add_option("--iterations-per-expansion", s.iterations_per_expansion, "auto iterations per expansion (default 1)");
  cmd.add_option("--debug-attempts", s.expansion.debug_attempts, "Fixes per debug loop (default 3)");
  cmd.add_option("--tune-budget", s.expansion.tune.budget, "Tuning trials per expansion (default 8)");
  cmd.add_option("--budget", s.expansion.time_budget_s, "Seconds of paired timing per evaluation (default 1)");
  cmd.add_option("--strategies", o->strategies, "A TOML file of extra strategies ([[strategy]] id, family, text)");
  cmd.add_option("--start", o->start, "Start from this kernel instead of from scratch");
  cmd.add_option("--max-usd", o->max_usd, "Stop cleanly once this much was spent on models");
  cmd.add_option("--max-tokens", o->max_tokens, "Stop cleanly once this many tokens were used");
  cmd.add_option("--threads", o->threads, "Threads for kernels (default: all CPUs)");
  cmd.add_option("--prompts", o->prompts, "A folder of prompt templates replacing kforge's");
  cmd.add_option("--config", o->config, "kforge.toml to use");
  cmd.add_flag("--stream", o->stream, "Show the models' replies as they are written");
  cmd.add_flag("--quiet", o->quiet, "No progress lines");
  cmd.add_flag("--json", o->json, "Print JSON");
  cmd.callback([o, &exit_status] { exit_status = run_search_command(*o); });
}

}  // namespace kforge::cli
