// The auto loop, top to bottom: prepare, then iterations of plan → implement → compile → check
// → tune → time → profile → diagnose, each recorded as it ends.
#include "kforge/modes/auto_loop.h"

#include <fmt/format.h>

#include <chrono>

#include "kforge/core/fs.h"
#include "kforge/core/hash.h"

namespace kforge::modes {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

llm::SessionTotals minus(const llm::SessionTotals& a, const llm::SessionTotals& b) {
  llm::SessionTotals d;
  d.calls = a.calls - b.calls;
  d.usage.input_tokens = a.usage.input_tokens - b.usage.input_tokens;
  d.usage.output_tokens = a.usage.output_tokens - b.usage.output_tokens;
  d.cost_usd = a.cost_usd - b.cost_usd;
  return d;
}

bool stops_the_run(const llm::LlmError& e) {
  return e.kind != llm::ErrorKind::malformed && e.kind != llm::ErrorKind::truncated;
}

std::string run_state_for(const llm::LlmError& e) {
  if (e.kind == llm::ErrorKind::budget_exhausted) return "stopped";
  if (e.kind == llm::ErrorKind::cancelled) return "interrupted";
  return "failed";
}

// The node row for an iteration as it stands (`finished`: the iteration has ended, whatever it gave).
store::NodeRecord node_record(const AutoEnv& env, const AutoOptions& o, const IterationRecord& rec, std::optional<std::int64_t> parent, int depth,
                              bool finished) {
  store::NodeRecord n;
  n.id = rec.node;
  n.run_id = env.run_id;
  n.parent_id = parent;
  n.depth = depth;
  n.iteration = rec.iteration;
  n.strategy = rec.strategy;
  n.plan = rec.plan;
  n.source = rec.source;
  n.source_hash = core::Hasher().add(rec.source).hex();
  n.state = finished ? "done" : "running";
  if (rec.evaluation) {
    const auto& e = *rec.evaluation;
    n.verdict = std::string(eval::verdict_name(e.verdict));
    n.reason = e.reason;
    if (e.candidate) n.median_ms = e.candidate->median_ms;
    if (e.baseline) n.baseline_ms = e.baseline->median_ms;
    if (e.speedup) n.speedup = e.speedup->median;
    if (e.candidate) n.roofline = e.roofline;
    if (e.profile) n.profile = e.profile->summary();
    n.finished_at = store::now_iso8601();
  }
  if (rec.diagnosis) {
    n.diagnosis = fmt::format("{} (bottleneck: {}); next: {}", rec.diagnosis->diagnosis, rec.diagnosis->bottleneck, rec.diagnosis->suggestion);
    n.needs_improvement = rec.diagnosis->needs_improvement;
  }
  n.tokens_in = rec.tokens.usage.input_tokens;
  n.tokens_out = rec.tokens.usage.output_tokens;
  n.cost_usd = rec.tokens.cost_usd;
  nlohmann::json extra = o.node_extra;
  extra.update(nlohmann::json{{"fixes", rec.fixes},
                           {"tuning", rec.tuning},
                           {"seconds", {{"model", rec.clock.model_s}, {"compile", rec.clock.compile_s}, {"check", rec.clock.check_s},
                                        {"tune", rec.clock.tune_s}, {"time", rec.clock.time_s}, {"wall", rec.wall_s}}}});
  if (rec.decision) extra["decision"] = rec.decision->to_json();
  if (rec.evaluation && rec.evaluation->timing_end > 0)
    extra["timing_window"] = {rec.evaluation->timing_start, rec.evaluation->timing_end};
  n.extra = extra.dump();
  return n;
}

// An auto run started by a search, as one of its expansions.
bool in_search(const AutoOptions& o) { return o.parent_node.has_value() || !o.node_extra.empty(); }

// An auto run's files go by iteration; a search's by node (all its expansions are iteration 1,
// and each wrote over the last one's iter-1/).
void write_iteration_files(const AutoEnv& env, const AutoOptions& o, const IterationRecord& rec) {
  const bool search = in_search(o);
  std::string dir = search && rec.node ? fmt::format("node-{}/", rec.node) : fmt::format("iter-{}/", rec.iteration);
  if (!rec.plan.empty()) (void)env.journal->write(dir + "plan.md", rec.plan);
  if (!rec.source.empty()) (void)env.journal->write(dir + "kernel.cpp", rec.source);
  if (rec.evaluation) (void)env.journal->write(dir + "evaluation.json", eval::to_json(*rec.evaluation).dump(2));
  if (rec.diagnosis)
    (void)env.journal->write(dir + "diagnosis.md", fmt::format("BOTTLENECK: {}\nDIAGNOSIS: {}\nNEEDS_IMPROVEMENT: {}\nSUGGESTION: {}\n",
                                                                rec.diagnosis->bottleneck, rec.diagnosis->diagnosis,
                                                                rec.diagnosis->needs_improvement ? "yes" : "no", rec.diagnosis->suggestion));
  if (!rec.debug.empty()) {
    std::string log;
    for (std::size_t i = 0; i < rec.debug.size(); ++i)
      log += fmt::format("## Fix {}\n### Failure\n{}\n### Cause\n{}\n### Fix\n{}\n\n", i + 1, rec.debug[i].failure, rec.debug[i].fix.cause,
                         rec.debug[i].fix.fix);
    (void)env.journal->write(dir + "debug.md", log);
  }
}

// " Last fix tried: <cause> → <fix>." when the debugger tried one.
std::string last_fix(const IterationRecord& rec) {
  if (rec.debug.empty()) return "";
  const auto& f = rec.debug.back().fix;
  return fmt::format(" Last fix tried: {} → {}.", f.cause, f.fix);
}

// What later iterations are told of this one: its result, and why it failed or what the profiler
// concluded and suggested, each once.
agents::AttemptRecord attempt_record(const IterationRecord& rec, const std::string& failure) {
  agents::AttemptRecord a;
  a.iteration = rec.iteration;
  a.strategy = rec.strategy;
  a.verdict = rec.evaluation ? std::string(eval::verdict_name(rec.evaluation->verdict)) : "no kernel";
  if (rec.evaluation && rec.evaluation->correct() && rec.evaluation->candidate) {
    a.median_ms = rec.evaluation->candidate->median_ms;
    a.speedup = rec.evaluation->speedup;
    a.roofline = rec.evaluation->roofline;
  }
  a.failure = failure;
  a.tuning = rec.tuning;
  a.diagnosis = rec.diagnosis;
  return a;
}

}  // namespace

Result<double> measure_baseline_ms(const eval::TaskContext& ctx, const eval::EvalOptions& base) {
  auto text = core::read_text(ctx.spec().baseline_path());
  if (!text) return text.error();
  eval::EvalOptions o = base;
  o.role = toolchain::Role::baseline;
  o.time = true;
  o.profile_seconds = 0;
  o.progress = nullptr;
  auto e = eval::evaluate(ctx, *text, "baseline.cpp", o);
  if (!e.correct() || !e.candidate) return Error{fmt::format("task {}: the baseline does not pass its own check: {}", ctx.spec().id, e.reason)};
  return e.candidate->median_ms;
}

AutoResult run_auto(const AutoEnv& env, const AutoOptions& o) {
  AutoResult result;
  auto say = [&](const std::string& m) {
    if (env.say) env.say(m);
  };
  agents::LoopState state;
  state.task = env.ctx;
  state.machine = env.machine;
  state.threads = env.eval.threads;
  eval::EvalOptions timed = env.eval;
  timed.time_budget_s = o.time_budget_s;

  // Prepare: the baseline's time and the roofline bound the prompts quote.
  state.budget = {0, o.iterations, o.patience, 0, o.debug_attempts, in_search(o) ? "search expansion" : "run"};
  state.baseline_when = in_search(o) ? "measured alone once for the whole search" : "measured alone before the first iteration";
  if (o.baseline_ms > 0) state.baseline_ms = o.baseline_ms;
  else {
    say("measuring the baseline");
    auto b = measure_baseline_ms(*env.ctx, timed);
    if (!b) {
      result.state = "failed";
      result.stop_reason = b.error().message;
      return result;
    }
    state.baseline_ms = *b;
  }
  result.baseline_ms = state.baseline_ms;
  const auto& task = env.ctx->task();
  state.roofline_ms = 1e3 * std::max(task.flops / (env.machine->peak_gflops(state.threads) * 1e9 + 1e-30),
                                     task.bytes / (env.machine->peak_gbps(state.threads) * 1e9 + 1e-30));

  StepEnv steps{env.ctx, env.agents, &state, timed, [&](std::string_view m) { say(std::string(m)); }, nullptr};
  int without_improvement = 0;
  std::optional<std::int64_t> parent = o.parent_node;

  for (int it = 1; it <= o.iterations; ++it) {
    if (auto b = env.agents->llm->check_budget(); !b) {
      result.state = run_state_for(b.error());
      result.stop_reason = b.error().message;
      break;
    }
    IterationRecord rec;
    rec.iteration = it;
    state.budget.iteration = it;
    state.budget.without_improvement = without_improvement;
    steps.clock = &rec.clock;
    const auto start = Clock::now();
    const auto tokens_before = env.agents->llm->totals();
    const int depth = o.depth + it - 1;
    auto node_id = store::insert_node(env.journal->db(), node_record(env, o, rec, parent, depth, false));
    if (node_id) rec.node = *node_id;

    // Stops the run on a model failure that is not the model's reply being malformed.
    std::optional<llm::LlmError> fatal;
    // `failure`: why the iteration gave no correct kernel, in full ("" when it did).
    auto finish_iteration = [&](const std::string& outcome, const std::string& failure = "") {
      rec.outcome = outcome;
      rec.wall_s = seconds_since(start);
      rec.tokens = minus(env.agents->llm->totals(), tokens_before);
      (void)store::update_node(env.journal->db(), node_record(env, o, rec, parent, depth, true));
      write_iteration_files(env, o, rec);
      state.history.push_back(attempt_record(rec, failure));
      say(fmt::format("iteration {}: {}", it, outcome));
      result.iterations.push_back(std::move(rec));
    };

    say(fmt::format("iteration {}: planning", it));
    auto plan = timed_model_call(steps, [&] { return agents::plan(*env.agents, state, o.strategy); });
    if (!plan) {
      if (stops_the_run(plan.error())) fatal = plan.error();
      finish_iteration("the planner failed: " + plan.error().message, "the planner failed: " + plan.error().message);
      if (fatal) {
        result.state = run_state_for(*fatal);
        result.stop_reason = fatal->message;
        break;
      }
      ++without_improvement;
      continue;
    }
    rec.plan = plan->markdown;
    rec.strategy = plan->strategy;

    say(fmt::format("iteration {}: implementing", it));
    std::string current = state.best ? state.best->source : o.start_source;
    auto code = timed_model_call(steps, [&] { return agents::implement(*env.agents, state, *plan, current, o.coder_instruction); });
    if (!code) {
      if (stops_the_run(code.error())) fatal = code.error();
      finish_iteration("the coder failed: " + code.error().message, "the coder failed: " + code.error().message);
      if (fatal) {
        result.state = run_state_for(*fatal);
        result.stop_reason = fatal->message;
        break;
      }
      ++without_improvement;
      continue;
    }
    rec.source = *code;

    // Compile, then check, each with its own debug loop; the debugger sees every earlier error.
    say(fmt::format("iteration {}: compiling", it));
    auto compiled = compile_with_fixes(steps, rec.source, o.debug_attempts, rec.debug);
    rec.source = compiled.source;
    rec.fixes += compiled.fixes;
    if (!compiled.ok) {
      fatal = compiled.model_error;
      eval::Evaluation e;
      e.verdict = eval::Verdict::compile_error;
      e.reason = rec.debug.empty() ? "does not compile" : rec.debug.back().failure.substr(0, 2000);
      rec.evaluation = e;
      finish_iteration(fmt::format("does not compile after {} fix(es)", compiled.fixes),
                       fmt::format("does not compile after {} fix(es): {}{}", compiled.fixes, e.reason, last_fix(rec)));
      if (fatal) {
        result.state = run_state_for(*fatal);
        result.stop_reason = fatal->message;
        break;
      }
      ++without_improvement;
      if (without_improvement >= o.patience) {
        result.stop_reason = fmt::format("{} iterations without improvement", without_improvement);
        break;
      }
      continue;
    }
    say(fmt::format("iteration {}: checking", it));
    auto checked = check_with_fixes(steps, rec.source, o.debug_attempts, rec.debug);
    rec.source = checked.source;
    rec.fixes += checked.fixes;
    rec.evaluation = checked.evaluation;
    if (!checked.ok) {
      fatal = checked.model_error;
      finish_iteration(fmt::format("{} after {} fix(es): {}", eval::verdict_name(checked.evaluation->verdict), checked.fixes,
                                   checked.evaluation->reason.substr(0, 200)),
                       fmt::format("{} after {} fix(es): {}{}", eval::verdict_name(checked.evaluation->verdict), checked.fixes,
                                   checked.evaluation->reason, last_fix(rec)));
      if (fatal) {
        result.state = run_state_for(*fatal);
        result.stop_reason = fatal->message;
        break;
      }
      ++without_improvement;
      if (without_improvement >= o.patience) {
        result.stop_reason = fmt::format("{} iterations without improvement", without_improvement);
        break;
      }
      continue;
    }

    // Tune the declared tunables; the tuned kernel is checked and timed again from scratch.
    std::optional<eval::Evaluation> final_eval;
    {
      auto t = Clock::now();
      eval::EvalOptions tune_base = timed;
      tune_base.profile_seconds = o.profile_seconds;
      auto tuned = agents::tune(*env.ctx, rec.source, "kernel.cpp", tune_base, o.tune, [&](std::string_view m) { say(std::string(m)); });
      rec.clock.tune_s += seconds_since(t);
      if (!tuned) rec.tuning = "tunables not usable: " + tuned.error().message;
      else {
        rec.tuning = tuned->summary();
        rec.tuning_table = tuned->table();
        if (tuned->best && tuned->recheck && tuned->recheck->correct()) {
          rec.source = tuned->tuned_source;
          final_eval = tuned->recheck;
        } else if (tuned->best && tuned->recheck) {
          rec.tuning += " — the tuned kernel failed its re-check, the untuned one is kept";
        }
      }
    }
    if (!final_eval) {
      say(fmt::format("iteration {}: timing and profiling", it));
      final_eval = time_and_profile(steps, rec.source, o.profile_seconds);
    }
    rec.evaluation = final_eval;
    if (!final_eval->correct()) {
      finish_iteration(fmt::format("{} while timing: {}", eval::verdict_name(final_eval->verdict), final_eval->reason.substr(0, 200)),
                       fmt::format("{} while timing: {}", eval::verdict_name(final_eval->verdict), final_eval->reason));
      ++without_improvement;
      if (without_improvement >= o.patience) {
        result.stop_reason = fmt::format("{} iterations without improvement", without_improvement);
        break;
      }
      continue;
    }

    // Each timed evaluation measured the baseline again, beside this kernel: the latest is the one to quote.
    if (final_eval->baseline) {
      state.baseline_ms = final_eval->baseline->median_ms;
      state.baseline_when = fmt::format("measured beside iteration {}'s kernel, the latest measurement", it);
    }
    say(fmt::format("iteration {}: profiler's diagnosis", it));
    auto diagnosis =
        timed_model_call(steps, [&] { return agents::diagnose(*env.agents, state, rec.source, *final_eval, rec.tuning_table); });
    if (diagnosis) rec.diagnosis = *diagnosis;
    else if (stops_the_run(diagnosis.error())) fatal = diagnosis.error();

    // A kernel becomes the best only by beating the current best side by side in one run (see
    // paired_decision.h): never on medians or speedups measured in different runs.
    bool improved = !state.best;
    if (state.best) {
      say(fmt::format("iteration {}: timing against the best (iteration {}) side by side", it, state.best->iteration));
      auto t = Clock::now();
      rec.decision = eval::decide_paired(*env.ctx, rec.source, state.best->source, fmt::format("iteration {}", state.best->iteration), timed);
      rec.clock.time_s += seconds_since(t);
      improved = rec.decision->challenger_won();
    }
    std::string outcome = fmt::format("correct, {:.4g} ms, {:.2f}x the baseline, {:.0f}% of the roofline{}", final_eval->candidate->median_ms,
                                      final_eval->speedup ? final_eval->speedup->median : 0.0, 100 * final_eval->roofline,
                                      final_eval->roofline_note.empty() ? "" : " (" + final_eval->roofline_note + ")");
    if (rec.decision) outcome += "; " + rec.decision->describe();
    if (improved) outcome += in_search(o) ? " — best of this expansion" : " — new best";
    if (improved) {
      state.best = agents::BestKernel{rec.source, *final_eval, rec.diagnosis, it, rec.tuning_table};
      result.best_node = rec.node;
      (void)env.journal->write("best.cpp", rec.source);
      without_improvement = 0;
    } else {
      ++without_improvement;
    }
    if (rec.diagnosis) outcome += ". Profiler: " + rec.diagnosis->diagnosis;
    bool at_limit = improved && rec.diagnosis && !rec.diagnosis->needs_improvement;
    std::string limit_note = at_limit ? rec.diagnosis->diagnosis : "";
    finish_iteration(outcome);
    if (improved) parent = rec.node;  // the next iteration grows from this one (after its own row is written)
    // The run's best, for an auto run; a search's expansion has only the best of the expansion, and
    // the search decides its own best (side by side), so it does not touch the run row.
    if (!in_search(o)) {
      store::RunRecord run{env.run_id, "", "", "", "running"};
      run.best_node = result.best_node;
      (void)store::update_run(env.journal->db(), run);
    }

    if (fatal) {
      result.state = run_state_for(*fatal);
      result.stop_reason = fatal->message;
      break;
    }
    if (at_limit) {
      result.stop_reason = "the profiler judged the best kernel at its limit: " + limit_note;
      break;
    }
    if (without_improvement >= o.patience) {
      result.stop_reason = fmt::format("{} iterations without improvement", without_improvement);
      break;
    }
  }
  if (result.stop_reason.empty()) result.stop_reason = fmt::format("reached {} iterations", o.iterations);
  if (state.best) result.best = state.best;
  return result;
}

std::string auto_report(const AutoEnv& env, const AutoOptions& o, const AutoResult& r) {
  std::string s = fmt::format("# kforge auto: {} (size {})\n\n", env.ctx->spec().id, env.ctx->task().size);
  s += fmt::format("Baseline (PyTorch eager): {:.4g} ms with {} thread(s). Stopped: {}.\n\n", r.baseline_ms, env.eval.threads, r.stop_reason);
  s += "| iter | verdict | time ms | speedup | roofline | fixes | tokens in/out | cost $ | model s | compile s | check s | tune s | time s | "
       "what was tried |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& it : r.iterations) {
    const auto* e = it.evaluation ? &*it.evaluation : nullptr;
    auto cell = [](bool has, const std::string& v) { return has ? v : std::string("–"); };
    std::string strategy = it.strategy;
    for (auto& c : strategy)
      if (c == '\n' || c == '|') c = ' ';
    s += fmt::format("| {} | {} | {} | {} | {} | {} | {}/{} | {:.4f} | {:.1f} | {:.1f} | {:.1f} | {:.1f} | {:.1f} | {} |\n", it.iteration,
                     e ? std::string(eval::verdict_name(e->verdict)) : "—", cell(e && e->candidate, e && e->candidate ? fmt::format("{:.4g}", e->candidate->median_ms) : ""),
                     cell(e && e->speedup, e && e->speedup ? fmt::format("{:.2f}x{}", e->speedup->median, e->machine_busy ? " (busy)" : "") : ""),
                     cell(e && e->candidate, e ? fmt::format("{:.0f}%", 100 * e->roofline) : ""), it.fixes, it.tokens.usage.input_tokens,
                     it.tokens.usage.output_tokens, it.tokens.cost_usd, it.clock.model_s, it.clock.compile_s, it.clock.check_s, it.clock.tune_s,
                     it.clock.time_s, strategy.substr(0, 160));
  }
  if (r.best) {
    const auto& e = r.best->evaluation;
    // A speedup timed busy is not a figure to quote: said as such, with what it read.
    std::string speedup = !e.speedup        ? "no speedup measured"
                          : e.machine_busy ? fmt::format("no speedup to quote (timed on a busy machine: {}; it read {:.2f}x, 95% CI "
                                                         "{:.2f}–{:.2f}; `kforge eval` it on a quiet machine)",
                                                         e.busy_reason, e.speedup->median, e.speedup->ci_low, e.speedup->ci_high)
                                           : fmt::format("{:.2f}x the baseline (95% CI {:.2f}–{:.2f})", e.speedup->median, e.speedup->ci_low,
                                                         e.speedup->ci_high);
    s += fmt::format("\n## Best kernel (iteration {})\n\n{:.4g} ms, {}, {:.0f}% of the roofline{}. `best.cpp` in this folder.\n",
                     r.best->iteration, e.candidate->median_ms, speedup, 100 * e.roofline,
                     e.roofline_note.empty() ? "" : " (" + e.roofline_note + ")");
  } else {
    s += "\nNo correct kernel was found.\n";
  }
  // How the best was chosen: each correct kernel after the first was timed side by side against
  // the best of its time; the speedups in the table come from different runs and decide nothing.
  std::string decisions;
  for (const auto& it : r.iterations)
    if (it.decision) decisions += fmt::format("- iteration {}: {}\n", it.iteration, it.decision->describe());
  if (!decisions.empty())
    s += "\n## How the best was chosen\n\nEach correct kernel against the best so far, side by side in one run (a tie keeps the best; "
         "on a busy machine the comparison is timed twice and decides only when both runs agree):\n\n" + decisions;
  (void)o;
  return s;
}

nlohmann::json to_json(const AutoResult& r) {
  nlohmann::json its = nlohmann::json::array();
  for (const auto& it : r.iterations) {
    nlohmann::json j = {{"iteration", it.iteration}, {"node", it.node},          {"strategy", it.strategy}, {"outcome", it.outcome},
                        {"fixes", it.fixes},         {"tuning", it.tuning},      {"wall_s", it.wall_s},
                        {"tokens_in", it.tokens.usage.input_tokens},             {"tokens_out", it.tokens.usage.output_tokens},
                        {"cost_usd", it.tokens.cost_usd},
                        {"seconds", {{"model", it.clock.model_s}, {"compile", it.clock.compile_s}, {"check", it.clock.check_s},
                                     {"tune", it.clock.tune_s}, {"time", it.clock.time_s}}}};
    // How this iteration was judged against the best: by a side-by-side run, or as the first.
    j["decision"] = it.decision ? it.decision->to_json() : nlohmann::json(nullptr);
    j["verdict"] = it.evaluation ? nlohmann::json(eval::verdict_name(it.evaluation->verdict)) : nlohmann::json(nullptr);
    j["speedup"] = it.evaluation && it.evaluation->speedup ? nlohmann::json(it.evaluation->speedup->median) : nlohmann::json(nullptr);
    its.push_back(j);
  }
  nlohmann::json best = nullptr;
  if (r.best) {
    // A speedup timed busy is kept under busy_speedup, never as the best's speedup.
    const auto& e = r.best->evaluation;
    nlohmann::json speedup = nullptr;
    if (e.speedup) speedup = {{"median", e.speedup->median}, {"ci95", {e.speedup->ci_low, e.speedup->ci_high}}};
    best = {{"iteration", r.best->iteration},
            {"median_ms", e.candidate->median_ms},
            {"speedup", e.speedup && !e.machine_busy ? nlohmann::json(e.speedup->median) : nlohmann::json(nullptr)},
            {"speedup_ci95", e.speedup && !e.machine_busy ? speedup["ci95"] : nlohmann::json(nullptr)},
            {"busy", e.machine_busy},
            {"busy_reason", e.busy_reason},
            {"busy_speedup", e.machine_busy ? speedup : nlohmann::json(nullptr)},
            {"roofline", e.roofline}};
  }
  return {{"state", r.state}, {"stop_reason", r.stop_reason}, {"baseline_ms", r.baseline_ms}, {"iterations", its}, {"best", best}};
}

}  // namespace kforge::modes
