// The auto loop, top to bottom: prepare, then iterations of plan → implement → compile → check
// → tune → time → profile → diagnose, each recorded as it ends.
#include "kforge/modes/auto_loop.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "kforge/core/clock.h"
#include "kforge/core/fs.h"
#include "kforge/core/hash.h"
#include "kforge/core/shorten.h"
#include "kforge/eval/peak_cache.h"
#include "kforge/eval/python_kernel.h"
#include "kforge/eval/roofline.h"

namespace kforge::modes {
namespace {

using core::Clock;
using core::seconds_since;

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

store::RunState run_state_for(const llm::LlmError& e) {
  if (e.kind == llm::ErrorKind::budget_exhausted) return store::RunState::stopped;
  if (e.kind == llm::ErrorKind::cancelled) return store::RunState::interrupted;
  return store::RunState::failed;
}

// The node row for an iteration as it stands (`finished`: the iteration has ended, whatever it
// gave).
store::NodeRecord node_record(const AutoEnv& env, const AutoOptions& o, const IterationRecord& rec,
                              std::optional<std::int64_t> parent, int depth, bool finished) {
  store::NodeRecord n;
  n.id = rec.node;
  n.number = rec.node_number;
  n.run_id = env.run_id;
  n.parent_id = parent;
  n.depth = depth;
  n.iteration = rec.iteration;
  n.strategy = rec.strategy;
  n.plan = rec.plan;
  n.source = rec.source;
  n.source_hash = core::Hasher().add(rec.source).hex();
  n.state = finished ? store::NodeState::done : store::NodeState::running;
  if (rec.evaluation) {
    record_evaluation(n, *rec.evaluation);
    n.finished_at = store::now_iso8601();
  }
  if (rec.diagnosis) {
    n.diagnosis = fmt::format("{} (bottleneck: {}); next: {}", rec.diagnosis->diagnosis,
                              rec.diagnosis->bottleneck, rec.diagnosis->suggestion);
    n.needs_improvement = rec.diagnosis->needs_improvement;
  }
  n.tokens_in = rec.tokens.usage.input_tokens;
  n.tokens_out = rec.tokens.usage.output_tokens;
  n.cost_usd = rec.tokens.cost_usd;
  if (o.expansion) {
    n.expansion = o.expansion->key;
    n.strategy_id = o.expansion->strategy_id;
    n.partner = o.expansion->partner;
  }
  if (rec.decision) n.decision = rec.decision->to_json().dump();
  n.extra = nlohmann::json{{"fixes", rec.fixes},
                           {"tuning", rec.tuning},
                           {"seconds",
                            {{"model", rec.clock.model_s},
                             {"compile", rec.clock.compile_s},
                             {"check", rec.clock.check_s},
                             {"tune", rec.clock.tune_s},
                             {"time", rec.clock.time_s},
                             {"wall", rec.wall_s}}}}
                .dump();
  return n;
}

// An auto run started by a search, as one of its expansions.
bool in_search(const AutoOptions& o) {
  return o.parent_node.has_value() || o.expansion.has_value();
}

// An auto run's files go by iteration; a search's by node, numbered within the run as every
// command names it (all its expansions are iteration 1, and each wrote over the last one's
// iter-1/).
void write_iteration_files(const AutoEnv& env, const AutoOptions& o, const IterationRecord& rec,
                           const std::function<void(const std::string&)>& say) {
  const bool search = in_search(o);
  std::string dir = search && rec.node_number ? fmt::format("node-{}/", rec.node_number)
                                              : fmt::format("iter-{}/", rec.iteration);
  std::vector<std::pair<std::string, std::string>> files;
  if (!rec.plan.empty()) files.emplace_back("plan.md", rec.plan);
  if (!rec.source.empty()) files.emplace_back(env.target.kernel_file(), rec.source);
  if (rec.evaluation) files.emplace_back("evaluation.json", eval::to_json(*rec.evaluation).dump(2));
  if (rec.diagnosis)
    files.emplace_back(
        "diagnosis.md",
        fmt::format("BOTTLENECK: {}\nDIAGNOSIS: {}\nNEEDS_IMPROVEMENT: {}\nSUGGESTION: {}\n",
                    rec.diagnosis->bottleneck, rec.diagnosis->diagnosis,
                    rec.diagnosis->needs_improvement ? "yes" : "no", rec.diagnosis->suggestion));
  if (!rec.debug.empty()) {
    std::string log;
    for (std::size_t i = 0; i < rec.debug.size(); ++i)
      log += fmt::format("## Fix {}\n### Failure\n{}\n### Cause\n{}\n### Fix\n{}\n\n", i + 1,
                         rec.debug[i].failure, rec.debug[i].fix.cause, rec.debug[i].fix.fix);
    files.emplace_back("debug.md", log);
  }
  for (const auto& [name, content] : files)
    if (auto st = env.journal->write(dir + name, content); !st)
      say(fmt::format("could not write {}{}: {}", dir, name, st.error().message));
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
  a.verdict =
      rec.evaluation ? std::string(eval::verdict_name(rec.evaluation->verdict)) : "no kernel";
  if (rec.evaluation && rec.evaluation->correct() && rec.evaluation->candidate) {
    a.median_ms = rec.evaluation->candidate->median_ms;
    a.speedup = rec.evaluation->speedup;
    a.roofline = rec.evaluation->roofline;
  }
  // Its side-by-side result against the best of the time: the model compares within one run.
  if (rec.decision) a.paired = rec.decision->describe();
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
  // With a peer to beat (--beat), the time to beat is the peer's, measured beside baseline.cpp.
  if (!base.peer.empty() && e.partner_failed)
    return Error{fmt::format("task {}: the {} peer could not be timed: {}", ctx.spec().id,
                             base.peer, e.reason)};
  if (!e.correct() || !e.candidate)
    return Error{fmt::format("task {}: the baseline does not pass its own check: {}", ctx.spec().id,
                             e.reason)};
  if (!base.peer.empty() && e.baseline) return e.baseline->median_ms;
  return e.candidate->median_ms;
}

namespace {

// How an iteration ended. Every iteration ends through one of these, and one stop rule reads it.
struct IterationEnd {
  std::string outcome;                 // one line: what the iteration gave
  std::string failure;                 // why it gave no correct kernel, in full ("" when it did)
  std::optional<llm::LlmError> fatal;  // a model failure that stops the run
  bool improved = false;               // a new best
  std::string at_limit;  // the profiler's diagnosis, when it judged the new best at its limit
  bool correct_is_final = false;  // interpret-mode timing: the first correct kernel ends the run
  std::string interrupted;        // Ctrl-C: the step it came in ("checking"); the run stops
};

// Why a model failure ends the iteration, and whether it ends the run too: only a malformed or
// truncated reply leaves the run going.
IterationEnd model_failed(const std::string& who, const llm::LlmError& e) {
  IterationEnd end{who + " failed: " + e.message, who + " failed: " + e.message};
  if (stops_the_run(e)) end.fatal = e;
  return end;
}

// One run of the loop: the state every iteration reads and the steps of one iteration, in order.
class Loop {
 public:
  Loop(const AutoEnv& env, const AutoOptions& o) : env_(env), o_(o), parent_(o.parent_node) {
    state_.task = env.ctx;
    state_.machine = env.machine;
    // The loop's own copy of the machine, re-read from its peaks record before each request.
    if (env.machine) {
      machine_ = *env.machine;
      state_.machine = &*machine_;
    }
    state_.dialect = agents::kernel_dialect(env.target, *env.ctx);
    state_.threads = env.eval.threads;
    state_.baseline_name = env.target.target().baseline_name(env.eval);
    state_.search = o.search;
    timed_ = env.eval;
    timed_.time_budget_s = o.time_budget_s;
    if (machine_ && env.eval.machine == env.machine) timed_.machine = &*machine_;
  }

  AutoResult run() {
    if (!prepare()) return std::move(result_);
    for (int it = 1; it <= o_.iterations; ++it) {
      if (cancelled()) {
        stop(store::RunState::interrupted,
             fmt::format("interrupted (Ctrl-C) before iteration {}", it));
        break;
      }
      if (auto b = env_.agents->llm->check_budget(); !b) {
        stop(run_state_for(b.error()), b.error().message);
        break;
      }
      IterationRecord rec = begin(it);
      IterationEnd end = iterate(rec);
      finish(std::move(rec), end);
      if (stop_rule(end)) break;
    }
    if (result_.stop_reason.empty())
      result_.stop_reason = fmt::format("reached {} iterations", o_.iterations);
    if (state_.best) result_.best = state_.best;
    return std::move(result_);
  }

 private:
  // The baseline's time and the roofline bound the prompts quote.
  bool prepare() {
    state_.budget = {0, o_.iterations,     o_.patience,
                     0, o_.debug_attempts, in_search(o_) ? "search expansion" : "run"};
    state_.baseline_when = in_search(o_) ? "measured alone once for the whole search"
                                         : "measured alone before the first iteration";
    if (o_.baseline_ms > 0)
      state_.baseline_ms = o_.baseline_ms;
    else if (!env_.target.target().baseline_timed_alone()) {
      // Another target's baseline (pallas: XLA; cuda: PyTorch eager on the device) is paired with
      // every kernel by the target's judge; the first timed kernel gives its time.
      state_.baseline_when = "measured beside each kernel (none timed yet)";
    } else {
      say("measuring the baseline");
      auto b = measure_baseline_ms(*env_.ctx, timed_);
      if (!b && cancelled()) {
        stop(store::RunState::interrupted, "interrupted (Ctrl-C) while measuring the baseline");
        return false;
      }
      if (!b) {
        result_.internal_error = b.error().message;
        stop(store::RunState::failed, b.error().message);
        return false;
      }
      state_.baseline_ms = *b;
    }
    result_.baseline_ms = state_.baseline_ms;
    const auto& task = env_.ctx->task();
    // The roofline is the host CPU's: it bounds the host's own kernels only.
    if (!env_.target.target().roofline_applies()) return true;
    state_.roofline_ms =
        1e3 * eval::roofline_seconds(task.flops, task.bytes, *env_.machine, state_.threads);
    return true;
  }

  // Every request reads the current peaks record: a newer (quieter) measurement made during the
  // run replaces the one read at its start, and the rooflines already quoted are re-based on it.
  bool refresh_peaks() {
    if (!machine_) return false;
    auto fresh = eval::newer_peaks(*machine_);
    if (!fresh) return false;
    const double was = machine_->peak_gflops(state_.threads);
    *machine_ = std::move(*fresh);
    if (env_.target.target().roofline_applies()) rebase_rooflines();
    state_.peaks_note =
        fmt::format("peak re-measured: {:.1f} GFLOP/s, was {:.1f}; rooflines re-based",
                    machine_->peak_gflops(state_.threads), was);
    say(state_.peaks_note);
    return true;
  }

  void rebase_rooflines() {
    const auto& task = env_.ctx->task();
    auto fraction = [&](double ms) {
      return eval::roofline_fraction(task.flops, task.bytes, ms / 1e3, *machine_, state_.threads);
    };
    state_.roofline_ms =
        1e3 * eval::roofline_seconds(task.flops, task.bytes, *machine_, state_.threads);
    if (state_.best && state_.best->evaluation.candidate)
      state_.best->evaluation.roofline = fraction(state_.best->evaluation.candidate->median_ms);
    for (auto& a : state_.history)
      if (a.median_ms) a.roofline = fraction(*a.median_ms);
  }

  // The iteration's record and its node row, marked running.
  IterationRecord begin(int it) {
    refresh_peaks();
    IterationRecord rec;
    rec.iteration = it;
    state_.budget.iteration = it;
    state_.budget.without_improvement = without_improvement_;
    start_ = Clock::now();
    tokens_before_ = env_.agents->llm->totals();
    depth_ = o_.depth + it - 1;
    auto& ledger = env_.journal->ledger();
    auto node = ledger.add_node(node_record(env_, o_, rec, parent_, depth_, false));
    if (!node) {
      say("the iteration's node could not be recorded: " + node.error().message);
      return rec;
    }
    rec.node = *node;
    if (auto number = ledger.number_of(env_.run_id, *node))
      rec.node_number = *number;
    else
      say("the iteration's node number could not be read: " + number.error().message);
    return rec;
  }

  // plan → implement → compile → check → tune → time → diagnose → decide; a step that gives no
  // kernel to go on with ends the iteration there.
  IterationEnd iterate(IterationRecord& rec) {
    steps_ = {env_.ctx,
              env_.agents,
              &state_,
              timed_,
              [this](std::string_view m) { say(std::string(m)); },
              &rec.clock,
              env_.target};
    // Ctrl-C ends the iteration after the step it came in, whatever that step made of it (a
    // cancelled model call, a killed compile, an interrupted evaluation).
    auto ended = [&](const char* step,
                     std::optional<IterationEnd> end) -> std::optional<IterationEnd> {
      if (cancelled()) return interrupted_end(step);
      return end;
    };
    std::optional<agents::Plan> plan;
    if (auto end = ended("planning", plan_step(rec, plan))) return *end;
    if (auto end = ended("implementing", implement_step(rec, *plan))) return *end;
    if (auto end = ended("compiling", compile_step(rec))) return *end;
    if (auto end = ended("checking", check_step(rec))) return *end;
    tune_step(rec);
    if (auto end = ended("tuning", std::nullopt)) return *end;
    if (auto end = ended("timing", time_step(rec))) return *end;
    diagnose_step(rec);
    if (auto end = ended("waiting for the profiler's diagnosis", std::nullopt)) return *end;
    IterationEnd end = decide_step(rec);
    // A kernel that won its side-by-side run is kept; the run stops after it either way.
    if (cancelled()) {
      if (!end.improved) return interrupted_end("timing against the best");
      end.interrupted = "deciding the best";
    }
    return end;
  }

  bool cancelled() const { return timed_.cancel && timed_.cancel->load(); }

  static IterationEnd interrupted_end(const char* step) {
    IterationEnd end;
    end.outcome = end.failure = fmt::format("interrupted (Ctrl-C) while {}", step);
    end.interrupted = step;
    return end;
  }

  std::optional<IterationEnd> plan_step(IterationRecord& rec, std::optional<agents::Plan>& plan) {
    say(fmt::format("iteration {}: planning", rec.iteration));
    auto p =
        timed_model_call(steps_, [&] { return agents::plan(*env_.agents, state_, o_.strategy); });
    if (!p) return model_failed("the planner", p.error());
    rec.plan = p->markdown;
    rec.strategy = p->strategy;
    plan = *p;
    return std::nullopt;
  }

  std::optional<IterationEnd> implement_step(IterationRecord& rec, const agents::Plan& plan) {
    say(fmt::format("iteration {}: implementing", rec.iteration));
    std::string current = state_.best ? state_.best->source : o_.start_source;
    auto code = timed_model_call(steps_, [&] {
      return agents::implement(*env_.agents, state_, plan, current, o_.coder_instruction);
    });
    if (!code) return model_failed("the coder", code.error());
    rec.source = *code;
    return std::nullopt;
  }

  // Compile, then check, each with its own debug loop; the debugger sees every earlier error.
  std::optional<IterationEnd> compile_step(IterationRecord& rec) {
    say(fmt::format("iteration {}: compiling", rec.iteration));
    auto compiled = compile_with_fixes(steps_, rec.source, o_.debug_attempts, rec.debug);
    rec.source = compiled.source;
    rec.fixes += compiled.fixes;
    if (compiled.ok) return std::nullopt;
    eval::Evaluation e;
    e.verdict = eval::Verdict::compile_error;
    e.reason = rec.debug.empty() ? "does not compile" : rec.debug.back().failure.substr(0, 2000);
    rec.evaluation = e;
    return IterationEnd{fmt::format("does not compile after {} fix(es)", compiled.fixes),
                        fmt::format("does not compile after {} fix(es): {}{}", compiled.fixes,
                                    e.reason, last_fix(rec)),
                        compiled.model_error};
  }

  std::optional<IterationEnd> check_step(IterationRecord& rec) {
    say(fmt::format("iteration {}: checking", rec.iteration));
    auto checked = check_with_fixes(steps_, rec.source, o_.debug_attempts, rec.debug);
    rec.source = checked.source;
    rec.fixes += checked.fixes;
    rec.evaluation = checked.evaluation;
    if (checked.ok) return std::nullopt;
    const auto verdict = eval::verdict_name(checked.evaluation->verdict);
    return IterationEnd{fmt::format("{} after {} fix(es): {}", verdict, checked.fixes,
                                    checked.evaluation->reason.substr(0, 200)),
                        fmt::format("{} after {} fix(es): {}{}", verdict, checked.fixes,
                                    checked.evaluation->reason, last_fix(rec)),
                        checked.model_error};
  }

  // Tune the declared tunables; a tuned kernel that passes its re-check is kept with that
  // evaluation (checked and timed again from scratch).
  void tune_step(IterationRecord& rec) {
    tuned_eval_.reset();
    // The tuner rebuilds a C-ABI kernel with -D values; a Python kernel has no such switch.
    if (auto why = env_.target.target().untunable_reason(); !why.empty()) {
      rec.tuning = "not tuned: " + why;
      return;
    }
    auto t = Clock::now();
    eval::EvalOptions tune_base = timed_;
    tune_base.profile_seconds = o_.profile_seconds;
    // A side-by-side tuning run gets at most half the evaluation's timing budget (0.5 s of the
    // default 1 s): there are several per iteration, and a shorter --budget shortens them too.
    agents::TuneOptions tune = o_.tune;
    tune.time_budget_s = std::min(tune.time_budget_s, o_.time_budget_s / 2);
    auto tuned = agents::tune(env_.target, *env_.ctx, rec.source, tune_base, tune,
                              [this](std::string_view m) { say(std::string(m)); });
    rec.clock.tune_s += seconds_since(t);
    if (!tuned) {
      rec.tuning = "tunables not usable: " + tuned.error().message;
      return;
    }
    rec.tuning = tuned->summary();
    rec.tuning_table = tuned->table();
    if (tuned->best && tuned->recheck && tuned->recheck->correct()) {
      rec.source = tuned->tuned_source;
      tuned_eval_ = tuned->recheck;
    } else if (tuned->best && tuned->recheck) {
      rec.tuning += " — the tuned kernel failed its re-check, the untuned one is kept";
    }
  }

  std::optional<IterationEnd> time_step(IterationRecord& rec) {
    if (tuned_eval_)
      rec.evaluation = tuned_eval_;
    else {
      say(fmt::format("iteration {}: timing and profiling", rec.iteration));
      rec.evaluation = time_and_profile(steps_, rec.source, o_.profile_seconds);
    }
    const auto& e = *rec.evaluation;
    if (!e.correct())
      return IterationEnd{
          fmt::format("{} while timing: {}", eval::verdict_name(e.verdict),
                      e.reason.substr(0, 200)),
          fmt::format("{} while timing: {}", eval::verdict_name(e.verdict), e.reason)};
    // Each timed evaluation measured the baseline again, beside this kernel: the latest is the one
    // to quote.
    if (e.baseline) {
      state_.baseline_ms = e.baseline->median_ms;
      state_.baseline_when = fmt::format(
          "measured beside iteration {}'s kernel, the latest measurement", rec.iteration);
    }
    return std::nullopt;
  }

  void diagnose_step(IterationRecord& rec) {
    say(fmt::format("iteration {}: profiler's diagnosis", rec.iteration));
    if (refresh_peaks() && rec.evaluation->candidate && env_.target.target().roofline_applies()) {
      const auto& task = env_.ctx->task();
      rec.evaluation->roofline = eval::roofline_fraction(task.flops, task.bytes,
                                                         rec.evaluation->candidate->median_ms / 1e3,
                                                         *machine_, state_.threads);
    }
    auto diagnosis = timed_model_call(steps_, [&] {
      return agents::diagnose(*env_.agents, state_, rec.source, *rec.evaluation, rec.tuning_table);
    });
    if (diagnosis)
      rec.diagnosis = *diagnosis;
    else if (stops_the_run(diagnosis.error()))
      diagnosis_error_ = diagnosis.error();
  }

  // A kernel becomes the best only by beating the current best side by side in one run (see
  // paired_decision.h): never on medians or speedups measured in different runs.
  IterationEnd decide_step(IterationRecord& rec) {
    IterationEnd end;
    end.fatal = std::exchange(diagnosis_error_, std::nullopt);
    const auto& e = *rec.evaluation;
    end.improved = !state_.best;
    if (!env_.target.target().times_are_performance(e)) return decide_on_correctness(rec, end);
    if (state_.best) {
      say(fmt::format("iteration {}: timing against the best (iteration {}) side by side",
                      rec.iteration, state_.best->iteration));
      auto t = Clock::now();
      rec.decision =
          env_.target.decide_paired(*env_.ctx, rec.source, state_.best->source,
                                    fmt::format("iteration {}", state_.best->iteration), timed_);
      rec.clock.time_s += seconds_since(t);
      end.improved = rec.decision->challenger_won();
    }
    end.outcome = fmt::format(
        "correct, {:.4g} ms, {}, {:.0f}% of the roofline{}", e.candidate->median_ms,
        !e.speedup       ? "no speedup"
        : e.machine_busy ? "no speedup (busy)"
                         : fmt::format("{:.2f}x {}", e.speedup->median, state_.baseline_name),
        100 * e.roofline, e.roofline_note.empty() ? "" : " (" + e.roofline_note + ")");
    if (rec.decision) end.outcome += "; " + rec.decision->describe();
    if (end.improved) {
      end.outcome += in_search(o_) ? " — best of this expansion" : " — new best";
      state_.best =
          agents::BestKernel{rec.source, e, rec.diagnosis, rec.iteration, rec.tuning_table};
      result_.best_node = rec.node;
      write_best(rec);
    }
    if (rec.diagnosis) end.outcome += ". Profiler: " + rec.diagnosis->diagnosis;
    if (end.improved && rec.diagnosis && !rec.diagnosis->needs_improvement)
      end.at_limit = rec.diagnosis->diagnosis;
    return end;
  }

  // Interpret-mode times say nothing of a kernel's speed, so no side-by-side run decides: the
  // first correct kernel is the best, and the run stops there (no later kernel can be shown
  // faster).
  IterationEnd decide_on_correctness(IterationRecord& rec, IterationEnd& end) {
    const auto& e = *rec.evaluation;
    end.outcome = fmt::format("correct ({}: times are not performance)", e.timing_basis);
    if (end.improved) {
      end.outcome += in_search(o_) ? " — best of this expansion" : " — the best (first correct)";
      state_.best =
          agents::BestKernel{rec.source, e, rec.diagnosis, rec.iteration, rec.tuning_table};
      result_.best_node = rec.node;
      write_best(rec);
      end.correct_is_final = true;
    } else {
      end.outcome += "; the first correct kernel stays the best";
    }
    if (rec.diagnosis) end.outcome += ". Profiler: " + rec.diagnosis->diagnosis;
    return end;
  }

  void write_best(const IterationRecord& rec) {
    const std::string name = env_.target.best_file();
    if (auto st = env_.journal->write(name, rec.source); !st)
      say(fmt::format("could not write {}: {}", name, st.error().message));
  }

  // Records the ended iteration: its node, its files, what later iterations are told of it.
  void finish(IterationRecord rec, const IterationEnd& end) {
    rec.outcome = end.outcome;
    rec.wall_s = seconds_since(start_);
    rec.tokens = minus(env_.agents->llm->totals(), tokens_before_);
    auto node = node_record(env_, o_, rec, parent_, depth_, true);
    // A resumed search expands an interrupted node again; its evaluation (if any) judged nothing.
    if (!end.interrupted.empty()) node.state = store::NodeState::interrupted;
    if (auto st = env_.journal->ledger().update_node(node); !st)
      say("the iteration's node could not be updated: " + st.error().message);
    result_.nodes.push_back(std::move(node));
    write_iteration_files(env_, o_, rec, [this](const std::string& m) { say(m); });
    state_.history.push_back(attempt_record(rec, end.failure));
    say(fmt::format("iteration {}: {}", rec.iteration, end.outcome));
    if (end.improved) {
      without_improvement_ = 0;
      parent_ = rec.node;  // the next iteration grows from this one (after its own row is written)
      record_best();
    } else {
      ++without_improvement_;
    }
    result_.iterations.push_back(std::move(rec));
  }

  // The run's best, for an auto run; a search's expansion has only the best of the expansion, and
  // the search decides its own best (side by side), so it does not touch the run row.
  void record_best() {
    if (in_search(o_)) return;
    if (auto st = env_.journal->ledger().set_best(env_.run_id, result_.best_node); !st)
      say("the run's best could not be recorded: " + st.error().message);
  }

  // The stop rule, the same after every iteration: a fatal model failure, the profiler's limit,
  // then patience.
  bool stop_rule(const IterationEnd& end) {
    if (!end.interrupted.empty())
      return stop(store::RunState::interrupted,
                  fmt::format("interrupted (Ctrl-C) in iteration {}, while {}",
                              result_.iterations.back().iteration, end.interrupted));
    if (end.fatal) return stop(run_state_for(*end.fatal), end.fatal->message);
    if (end.correct_is_final)
      return stop(store::RunState::finished,
                  "a correct kernel: interpret-mode times are not performance, so no later kernel "
                  "could be shown faster");
    if (!end.at_limit.empty())
      return stop(store::RunState::finished,
                  "the profiler judged the best kernel at its limit: " + end.at_limit);
    if (without_improvement_ >= o_.patience)
      return stop(store::RunState::finished,
                  fmt::format("{} iterations without improvement", without_improvement_));
    return false;
  }

  bool stop(store::RunState state, const std::string& reason) {
    result_.state = state;
    result_.stop_reason = reason;
    return true;
  }

  void say(const std::string& m) const {
    if (env_.say) env_.say(m);
  }

  const AutoEnv& env_;
  const AutoOptions& o_;
  agents::LoopState state_;
  eval::EvalOptions timed_;
  StepEnv steps_;
  AutoResult result_;
  int without_improvement_ = 0;
  std::optional<std::int64_t> parent_;
  // The iteration in progress.
  Clock::time_point start_;
  llm::SessionTotals tokens_before_;
  int depth_ = 0;
  std::optional<eval::Evaluation> tuned_eval_;
  std::optional<llm::LlmError> diagnosis_error_;
  std::optional<eval::MachineProfile> machine_;  // the machine with its latest peaks
};

}  // namespace

AutoResult run_auto(const AutoEnv& env, const AutoOptions& o) { return Loop(env, o).run(); }

std::string auto_report(const AutoEnv& env, const AutoResult& r) {
  std::string s =
      fmt::format("# kforge auto: {} (size {})\n\n", env.ctx->spec().id, env.ctx->task().size);
  const target::Target& target = env.target.target();
  const std::string partner = target.baseline_name(env.eval);
  if (target.baseline_timed_alone())
    s += fmt::format("Baseline to beat ({}): {:.4g} ms with {} thread(s). Stopped: {}.\n\n",
                     partner, r.baseline_ms, env.eval.threads, r.stop_reason);
  else
    s += fmt::format("Target {}; every kernel paired with {} in the same run. Stopped: {}.\n\n",
                     target.name(), partner, r.stop_reason);
  s += "| iter | verdict | time ms | speedup | roofline | fixes | tokens in/out | cost $ | model s "
       "| compile s | check s | tune s | time s | "
       "what was tried |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& it : r.iterations) {
    const auto* e = it.evaluation ? &*it.evaluation : nullptr;
    auto cell = [](bool has, const std::string& v) { return has ? v : std::string("–"); };
    std::string strategy = it.strategy;
    for (auto& c : strategy)
      if (c == '\n' || c == '|') c = ' ';
    s += fmt::format(
        "| {} | {} | {} | {} | {} | {} | {}/{} | {:.4f} | {:.1f} | {:.1f} | {:.1f} | {:.1f} | "
        "{:.1f} | {} |\n",
        it.iteration, e ? std::string(eval::verdict_name(e->verdict)) : "—",
        cell(e && e->candidate,
             e && e->candidate ? fmt::format("{:.4g}", e->candidate->median_ms) : ""),
        cell(e && e->speedup && e->timing_is_performance(),
             e && e->speedup ? (e->machine_busy ? std::string("busy: no figure")
                                                : fmt::format("{:.2f}x", e->speedup->median))
                             : ""),
        cell(e && e->candidate && target.roofline_applies(),
             e ? fmt::format("{:.0f}%", 100 * e->roofline) : ""),
        it.fixes, it.tokens.usage.input_tokens, it.tokens.usage.output_tokens, it.tokens.cost_usd,
        it.clock.model_s, it.clock.compile_s, it.clock.check_s, it.clock.tune_s, it.clock.time_s,
        core::shorten(strategy, 160, "…"));
  }
  if (r.best && !target.times_are_performance(r.best->evaluation)) {
    const auto& e = r.best->evaluation;
    s += fmt::format(
        "\n## Best kernel (iteration {})\n\nCorrect on every secret input set. Timing basis {}: "
        "interpret-mode times are not performance; the best is the first correct kernel. No "
        "speedup is quoted. `{}` in this folder.\n",
        r.best->iteration, e.timing_basis, env.target.best_file());
  } else if (r.best) {
    const auto& e = r.best->evaluation;
    // A speedup timed busy is not a figure to quote: said as such, with what it read.
    std::string speedup =
        !e.speedup ? "no speedup measured"
        : e.machine_busy
            ? fmt::format(
                  "no speedup to quote (timed on a busy machine: {}; it read {:.2f}x, 95% CI "
                  "{:.2f}–{:.2f}; `kforge eval` it on a quiet machine)",
                  e.busy_reason, e.speedup->median, e.speedup->ci_low, e.speedup->ci_high)
            : fmt::format("{:.2f}x {} (95% CI {:.2f}–{:.2f})", e.speedup->median, partner,
                          e.speedup->ci_low, e.speedup->ci_high);
    s += fmt::format(
        "\n## Best kernel (iteration {})\n\n{:.4g} ms, {}, {:.0f}% of the roofline{}. `{}` "
        "in this folder.\n",
        r.best->iteration, e.candidate->median_ms, speedup, 100 * e.roofline,
        e.roofline_note.empty() ? "" : " (" + e.roofline_note + ")", env.target.best_file());
    if (e.speedup && !e.partner_note.empty())
      s += fmt::format("\nThe baseline: {}.\n", e.partner_note);
  } else {
    s += "\nNo correct kernel was found.\n";
  }
  s += peers_section(r.peers, env.eval.threads);
  // How the best was chosen: each correct kernel after the first was timed side by side against
  // the best of its time; the speedups in the table come from different runs and decide nothing.
  std::string decisions;
  for (const auto& it : r.iterations)
    if (it.decision)
      decisions += fmt::format("- iteration {}: {}\n", it.iteration, it.decision->describe());
  if (!decisions.empty())
    s += "\n## How the best was chosen\n\nEach correct kernel against the best so far, side by "
         "side in one run (a tie keeps the best; "
         "on a busy machine the comparison is timed twice and decides only when both runs "
         "agree):\n\n" +
         decisions;
  return s;
}

nlohmann::json to_json(const AutoResult& r) {
  nlohmann::json its = nlohmann::json::array();
  for (const auto& it : r.iterations) {
    nlohmann::json j = {{"iteration", it.iteration},
                        {"node", it.node_number},
                        {"strategy", it.strategy},
                        {"outcome", it.outcome},
                        {"fixes", it.fixes},
                        {"tuning", it.tuning},
                        {"wall_s", it.wall_s},
                        {"tokens_in", it.tokens.usage.input_tokens},
                        {"tokens_out", it.tokens.usage.output_tokens},
                        {"cost_usd", it.tokens.cost_usd},
                        {"seconds",
                         {{"model", it.clock.model_s},
                          {"compile", it.clock.compile_s},
                          {"check", it.clock.check_s},
                          {"tune", it.clock.tune_s},
                          {"time", it.clock.time_s}}}};
    // How this iteration was judged against the best: by a side-by-side run, or as the first.
    j["decision"] = it.decision ? it.decision->to_json() : nlohmann::json(nullptr);
    j["verdict"] = it.evaluation ? nlohmann::json(eval::verdict_name(it.evaluation->verdict))
                                 : nlohmann::json(nullptr);
    j["speedup"] = it.evaluation && it.evaluation->speedup && it.evaluation->timing_is_performance()
                       ? nlohmann::json(it.evaluation->speedup->median)
                       : nlohmann::json(nullptr);
    its.push_back(j);
  }
  nlohmann::json best = nullptr;
  if (r.best) {
    // A speedup timed busy is kept under busy_speedup, never as the best's speedup.
    const auto& e = r.best->evaluation;
    nlohmann::json speedup = nullptr;
    // An interpret-mode ratio is no speedup: not given at all.
    if (e.speedup && e.timing_is_performance())
      speedup = {{"median", e.speedup->median}, {"ci95", {e.speedup->ci_low, e.speedup->ci_high}}};
    best = {{"iteration", r.best->iteration},
            {"median_ms", e.candidate->median_ms},
            {"speedup", !speedup.is_null() && !e.machine_busy ? nlohmann::json(e.speedup->median)
                                                              : nlohmann::json(nullptr)},
            {"speedup_ci95",
             !speedup.is_null() && !e.machine_busy ? speedup["ci95"] : nlohmann::json(nullptr)},
            {"busy", e.machine_busy},
            {"busy_reason", e.busy_reason},
            {"busy_speedup", e.machine_busy ? speedup : nlohmann::json(nullptr)},
            {"partner_note", e.partner_note},
            {"roofline", e.roofline}};
    if (!e.timing_is_performance()) {
      best["timing_basis"] = e.timing_basis;
      best["chosen_by"] = "the first correct kernel (interpret-mode times are not performance)";
    }
  }
  return {{"state", store::run_state_name(r.state)},
          {"stop_reason", r.stop_reason},
          {"baseline_ms", r.baseline_ms},
          {"iterations", its},
          {"best", best},
          {"peers", to_json(r.peers)}};
}

}  // namespace kforge::modes
