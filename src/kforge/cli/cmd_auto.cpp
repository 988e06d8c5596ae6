// kforge auto TASK [--model M] [--size S] [--iterations N] [--max-usd X] [--strategy TEXT] [--json]
// The closed optimization loop; everything it does lands in .kforge/sessions/<id>/ and the store.
#include <fmt/format.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "kforge/cli/agent_stack.h"
#include "kforge/cli/colour.h"
#include "kforge/cli/commands.h"
#include "kforge/cli/common.h"
#include "kforge/cli/executor_setup.h"
#include "kforge/cli/mode_target.h"
#include "kforge/cli/table.h"
#include "kforge/core/paths.h"
#include "kforge/core/shorten.h"
#include "kforge/core/threads.h"
#include "kforge/llm/llm.h"
#include "kforge/modes/auto_loop.h"

namespace kforge::cli {
namespace {

struct AutoCliOptions {
  std::string task, size, model, strategy, prompts, config, executor,
      beat = "fastest", report_peers, target, dtype = "f32";
  int iterations = 5, patience = 2, debug_attempts = 3, threads = 0, tune_budget = 8,
      tune_rounds = agents::TuneOptions{}.rounds;
  double max_usd = 0, budget = 1.0;
  std::int64_t max_tokens = 0;
  bool json = false, stream = false;
};

int run_auto_command(const AutoCliOptions& o) {
  // The target first: one that cannot run here is refused before a model is called.
  auto bound = bind_mode_target("auto", o.target, o.dtype, o.beat);
  const target::Target& target = bound.target();
  // --report-peers pairs the best with the peers (kforge-run's protocol) after the loop: asked
  // for only (about a minute at the cpu size, for report.md). A target the peers do not pair is
  // not paired with them, and the user is told so.
  const bool peers_asked = !o.report_peers.empty() && o.report_peers != "none";
  if (!target.peers_apply() && peers_asked)
    fmt::print(stderr,
               "kforge auto: --report-peers skipped: the peers are the cpp target's; the {} "
               "target's kernels are paired with its own baseline\n",
               target.name());
  const auto report_peers =
      target.peers_apply() && peers_asked
          ? peer_list(o.report_peers == "all" ? "" : o.report_peers, "--report-peers")
          : std::vector<std::string>{};
  auto spec = load_task_arg(o.task);
  auto compiler = make_compiler();
  auto ctx = eval::TaskContext::create(spec, o.size, *compiler, core::state_dir());
  if (!ctx) throw UsageError(ctx.error().message);
  AgentStackOptions so{
      fmt::format("kforge auto {} --size {}{}", spec.id, ctx->task().size, target_words(bound)),
      o.model,
      o.config,
      o.prompts,
      "",
      o.max_usd,
      o.max_tokens,
      o.stream};
  so.target = &target;
  auto stack = make_agent_stack(so);
  auto lock = make_machine_lock();
  auto machine = this_machine(lock.get());  // after the models are known to be usable
  if (!machine) throw UsageError(machine.error().message);
  auto& session = stack->session;
  const std::string run_id = session->id();
  auto journal = modes::RunJournal::open(core::state_dir(), run_id);
  if (!journal) throw UsageError(journal.error().message);
  nlohmann::json options = {{"model", o.model},
                            {"iterations", o.iterations},
                            {"patience", o.patience},
                            {"debug_attempts", o.debug_attempts},
                            {"strategy", o.strategy},
                            {"threads", o.threads},
                            {"max_usd", o.max_usd},
                            {"tune_budget", o.tune_budget},
                            {"tune_rounds", o.tune_rounds}};
  if (!recorded_target(bound).empty()) {
    options["target"] = target.name();
    options["dtype"] = bound.dtype();
  }
  if (auto st = journal->ledger().start_run(
          {run_id, "auto", spec.id, ctx->task().size, store::RunState::running, options.dump()});
      !st)
    throw UsageError(st.error().message);

  modes::AutoEnv env;
  env.ctx = &*ctx;
  env.machine = &*machine;
  env.agents = &stack->env;
  env.journal = &*journal;
  env.run_id = run_id;
  env.eval.threads = core::thread_count(o.threads);
  env.eval.machine = &*machine;
  env.eval.machine_lock = lock.get();
  env.eval.cancel = llm::install_interrupt_handler();  // installed with the agents; the same flag
  auto executor = make_executor(o.executor, o.config, run_id);
  env.eval.executor = executor.get();
  env.eval.quiet_waiter = &quiet_waiter();
  // A GPU target's agents are told the device and its measured peaks, or why there are none.
  enter_mode_target(
      bound, mode_partner(bound, o.beat, spec.id, ctx->task().size, env.eval.threads, *machine),
      *lock, env.eval);
  env.target = bound;
  env.say = [](std::string_view m) { fmt::print(stderr, "  … {}\n", m); };
  modes::AutoOptions ao;
  ao.iterations = o.iterations;
  ao.patience = o.patience;
  ao.debug_attempts = o.debug_attempts;
  ao.strategy = o.strategy;
  ao.time_budget_s = o.budget;
  ao.tune.budget = o.tune_budget;
  ao.tune.rounds = o.tune_rounds;
  fmt::print(stderr, "kforge auto: session {} — {} (size {}), {} thread(s); artifacts in {}\n",
             run_id, spec.id, ctx->task().size, env.eval.threads, journal->dir().string());

  auto result = modes::run_auto(env, ao);
  if (result.best && !result.internal_error && !report_peers.empty())
    result.peers =
        modes::compare_with_peers(*ctx, result.best->source, env.eval, report_peers, env.say);
  const auto report = journal->dir() / "report.md";
  auto wrote = journal->write("report.md", modes::auto_report(env, result));
  if (!wrote)
    fmt::print(stderr, "kforge auto: could not write report.md: {}\n", wrote.error().message);
  const bool reported = wrote.ok();
  auto ended = journal->ledger().update_run(run_id, [&](store::RunRecord& run) {
    run.state = result.state;
    run.stop_reason = result.stop_reason;
    run.best_node = result.best_node;
  });
  if (!ended) fmt::print(stderr, "kforge auto: {}\n", ended.error().message);
  if (result.internal_error) throw InternalError(*result.internal_error);  // the run is recorded

  auto totals = session->totals();
  if (o.json) {
    nlohmann::json j = modes::to_json(result);
    j["session"] = run_id;
    j["dir"] = journal->dir().string();
    j["report"] = reported ? nlohmann::json(report.string()) : nlohmann::json(nullptr);
    j["tokens_in"] = totals.usage.input_tokens;
    j["tokens_out"] = totals.usage.output_tokens;
    j["tokens_estimated"] = totals.estimated;
    j["cost_usd"] = totals.cost_usd;
    fmt::print("{}\n", j.dump(2));
  } else {
    Table t({"iter", "verdict", "ms", "speedup", "roofline", "fixes", "outcome"},
            {true, false, true, true, true, true, false});
    for (const auto& it : result.iterations) {
      const auto* e = it.evaluation ? &*it.evaluation : nullptr;
      t.add({std::to_string(it.iteration), e ? paint_verdict(eval::verdict_name(e->verdict)) : "—",
             e && e->candidate ? format_ms(e->candidate->median_ms) : "",
             e && e->speedup && e->timing_is_performance()
                 ? (e->machine_busy ? std::string("busy") : paint_ratio(e->speedup->median))
                 : "",
             e && e->candidate ? format_percent(e->roofline) : "", std::to_string(it.fixes),
             core::shorten(it.outcome, 90, "…")});
    }
    fmt::print("{}\nstopped: {}\n", t.render(), result.stop_reason);
    if (result.best && !target.times_are_performance(result.best->evaluation))
      fmt::print(
          "best: iteration {}, the first correct kernel ({}: times are not performance, "
          "no speedup) → {}\n",
          result.best->iteration, result.best->evaluation.timing_basis,
          (journal->dir() / bound.best_file()).string());
    else if (result.best)
      fmt::print(
          "best: iteration {}, {} ms, {} → {}\n", result.best->iteration,
          format_ms(result.best->evaluation.candidate->median_ms),
          !result.best->evaluation.speedup ? std::string("no speedup")
          : result.best->evaluation.machine_busy
              ? fmt::format("no speedup over {}, the partner it aimed at (timed on a busy "
                            "machine)",
                            target.baseline_name(env.eval))
              : fmt::format("{} [{}-{}] over {}, the partner it aimed at (one run's "
                            "interval: `kforge eval --runs 3` gives the spread between runs)",
                            format_ratio(result.best->evaluation.speedup->median),
                            format_ratio(result.best->evaluation.speedup->ci_low),
                            format_ratio(result.best->evaluation.speedup->ci_high),
                            target.baseline_name(env.eval)),
          (journal->dir() / bound.best_file()).string());
    else
      fmt::print("no correct kernel\n");
    if (reported) fmt::print("report: {}\n", report.string());
    if (result.best && !result.peers.empty())
      fmt::print("peers: the best timed against {} peer(s), in the report\n", result.peers.size());
    else if (result.best && target.peers_apply())
      fmt::print(
          "peers: not timed (--report-peers all, or a list such as torch,xla, times the best "
          "against them for the report: about a minute at the cpu size)\n");
    fmt::print("model use: {} calls, {} tokens in, {} out, ${:.4f}{}\n", totals.calls,
               format_tokens(totals.usage.input_tokens, totals.estimated),
               format_tokens(totals.usage.output_tokens, totals.estimated), totals.cost_usd,
               totals.unpriced ? " (some calls unpriced)" : "");
    if (totals.estimated) fmt::print("{}\n", kEstimatedTokensNote);
  }
  return result.best ? 0 : 1;
}

}  // namespace

void add_auto(CommandLine& cmd) {
  auto o = std::make_shared<AutoCliOptions>();
  cmd.bind("task", o->task);
  cmd.require("task");
  cmd.bind("model", o->model);
  cmd.bind("size", o->size);
  cmd.bind("iterations", o->iterations);
  cmd.bind("patience", o->patience);
  cmd.bind("debug-attempts", o->debug_attempts);
  cmd.bind("max-usd", o->max_usd);
  cmd.bind("max-tokens", o->max_tokens);
  cmd.bind("strategy", o->strategy);
  cmd.bind("threads", o->threads);
  cmd.bind("beat", o->beat);
  cmd.bind("report-peers", o->report_peers);
  cmd.bind("budget", o->budget);
  cmd.bind("tune-budget", o->tune_budget);
  cmd.bind("tune-rounds", o->tune_rounds);
  cmd.bind("prompts", o->prompts);
  cmd.bind("config", o->config);
  cmd.bind("executor", o->executor);
  cmd.bind("stream", o->stream);
  cmd.bind("json", o->json);
  cmd.bind("target", o->target);
  cmd.bind("dtype", o->dtype);
  cmd.on_run([o] { return run_auto_command(*o); });
}

}  // namespace kforge::cli
