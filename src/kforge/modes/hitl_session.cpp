// The hitl commands. Each one does exactly one step, shows its evidence, and stops; changes to
// the kernel proposed by a model are shown as a diff and kept only when the human says so.
#include "kforge/modes/hitl_session.h"

#include "kforge/eval/python_kernel.h"

#include <fmt/format.h>

#include <cctype>
#include <sstream>

#include "kforge/agents/tuner.h"
#include "kforge/core/fs.h"
#include "kforge/core/shorten.h"
#include "kforge/core/subprocess.h"
#include "kforge/core/trim.h"
#include "kforge/eval/roofline.h"
#include "kforge/modes/hitl_versions.h"
#include "kforge/store/store.h"

namespace kforge::modes {
namespace {

// "1.23x the baseline", or why there is no figure (a busy timing gives none).
std::string speedup_words(const eval::Evaluation& e) {
  if (!e.speedup) return "no speedup";
  if (e.machine_busy) return "no speedup (timed on a busy machine)";
  const bool baseline = e.partner.empty() || e.partner == "baseline" || e.partner == "libtorch";
  return fmt::format("{:.2f}x the {}", e.speedup->median, baseline ? "baseline" : e.partner);
}

std::string trim(const std::string& s) { return std::string(core::trim(s)); }

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool yes(const std::optional<std::string>& answer) {
  if (!answer) return false;
  std::string a = lower(trim(*answer));
  return a == "y" || a == "yes" || a == "k" || a == "keep" || a == "a" || a == "approve";
}

// `real`: the times are a kernel's performance; interpret-mode ones are shown as such, with no
// speedup and no roofline.
std::string timing_text(const eval::Evaluation& e, bool real) {
  std::string s;
  if (e.candidate)
    s += fmt::format("kernel    median {:.4g} ms  (p10 {:.4g}, p90 {:.4g}; {} paired runs)\n",
                     e.candidate->median_ms, e.candidate->p10_ms, e.candidate->p90_ms,
                     e.candidate->samples);
  if (e.baseline)
    s += fmt::format("{:<9} median {:.4g} ms  (p10 {:.4g}, p90 {:.4g})\n", e.partner,
                     e.baseline->median_ms, e.baseline->p10_ms, e.baseline->p90_ms);
  if (!real) {
    s += fmt::format("timing    {}: times are not performance (no speedup)\n", e.timing_basis);
    return s;
  }
  if (e.speedup && e.machine_busy)
    s += "speedup   none: the machine was busy (below); time it again on a quiet machine\n";
  else if (e.speedup)
    s += fmt::format("speedup   {:.2f}x  (p10 {:.2f}x, p90 {:.2f}x)\n", e.speedup->median,
                     e.speedup->p10, e.speedup->p90);
  if (e.speedup && !e.partner_note.empty()) s += fmt::format("partner   {}\n", e.partner_note);
  if (e.candidate)
    s += fmt::format("roofline  {:.1f}%  ({:.2f} GFLOP/s, {:.2f} GB/s){}\n", 100 * e.roofline,
                     e.gflops, e.gbps, e.roofline_note.empty() ? "" : "  " + e.roofline_note);
  if (e.machine_busy)
    s += fmt::format("busy      {} (load {:.1f}): times are unreliable, no speedup is given\n",
                     e.busy_reason, e.load_average);
  return s;
}

}  // namespace

std::string unified_diff(const std::string& a, const std::string& b, const std::string& label_a,
                         const std::string& label_b, const std::filesystem::path& scratch) {
  if (a == b) return "";
  auto fa = scratch / ".diff-a", fb = scratch / ".diff-b";
  for (const auto& [path, text] : {std::pair{fa, &a}, std::pair{fb, &b}})
    if (auto st = core::write_atomic(path, *text); !st)
      return "(the texts differ, but diff(1) could not be given them: " + st.error().message +
             ")\n";
  auto r = core::run_process(
      {"diff", "-u", "--label", label_a, "--label", label_b, fa.string(), fb.string()},
      {.timeout = std::chrono::seconds(30)});
  std::error_code ec;
  std::filesystem::remove(fa, ec);
  std::filesystem::remove(fb, ec);
  return r.out.empty() ? "(the texts differ, but diff(1) did not run: " + r.describe() + ")\n"
                       : r.out;
}

HitlSession::HitlSession(const eval::TaskContext& ctx, const eval::MachineProfile& machine,
                         agents::AgentEnv& agents, RunJournal& journal, eval::EvalOptions eval,
                         Human& human, HitlState state, target::BoundTarget target)
    : ctx_(ctx),
      machine_(machine),
      agents_(agents),
      journal_(journal),
      eval_(std::move(eval)),
      human_(human),
      state_(std::move(state)),
      target_(std::move(target)) {
  stream_ = [this](const llm::StreamDelta& d) {
    if (d.text.empty()) return;
    streamed_ += d.text.size();
    human_.show(d.text);
  };
  agents_.stream = &stream_;
}

agents::LoopState HitlSession::loop_state() const {
  agents::LoopState s;
  s.task = &ctx_;
  s.machine = &machine_;
  s.threads = eval_.threads;
  s.baseline_ms = state_.baseline_ms;
  s.baseline_name = target_.target().baseline_name(eval_);
  s.baseline_when = state_.baseline_when.empty() ? "measured alone when the session started"
                                                 : state_.baseline_when;
  s.dialect = agents::kernel_dialect(target_, ctx_);
  const auto& t = ctx_.task();
  // The roofline is the host CPU's and bounds the host's own kernels only; another target's
  // baseline is paired with each kernel by its judge.
  if (target_.target().roofline_applies())
    s.roofline_ms = 1e3 * eval::roofline_seconds(t.flops, t.bytes, machine_, s.threads);
  if (!target_.target().baseline_timed_alone() && state_.baseline_when.empty())
    s.baseline_when = "measured beside each kernel (none timed yet)";
  if (state_.best && state_.best->candidate)
    if (const auto* v = version(state_.best_version))
      s.best = agents::BestKernel{v->source, *state_.best, std::nullopt, state_.best_version};
  s.events = state_.history;  // no iteration limit: s.budget stays empty
  return s;
}

StepEnv HitlSession::step_env() {
  return StepEnv{&ctx_, &agents_, nullptr, eval_, {}, &clock_, target_};
}

std::string HitlSession::extension() const {
  return std::filesystem::path(kernel_file()).extension().string();
}

std::string HitlSession::prompt() const {
  auto t = agents_.llm->totals();
  return fmt::format("kforge {} v{} ${:.4f}> ", state_.task, state_.current, t.cost_usd);
}

const KernelVersion* HitlSession::version(int n) const {
  for (const auto& v : state_.versions)
    if (v.number == n) return &v;
  return nullptr;
}

std::string HitlSession::current_source() const {
  const auto* v = version(state_.current);
  return v ? v->source : "";
}

bool HitlSession::need_kernel() {
  if (state_.current) return true;
  human_.show("no kernel yet: `plan`, then `implement` (or `edit` to write one yourself)\n");
  return false;
}

void HitlSession::record(const std::string& event) { state_.history.push_back(event); }

// A file of the session folder that could not be written is said, and the session goes on: the
// state in memory is whole, and the next save writes it again.
void HitlSession::keep(const std::string& relative, const std::string& content) {
  if (auto st = journal_.write(relative, content); !st)
    human_.show(fmt::format("could not save {}: {}\n", relative, st.error().message));
}

void HitlSession::save() {
  keep("state.json", state_.to_json().dump(2));
  if (const auto* v = version(state_.current)) keep(kernel_file(), v->source);
}

// `source` by value: a revert passes an earlier version's, which the push below may move and free.
void HitlSession::add_version(std::string source, const std::string& origin, int parent) {
  int n = state_.versions.empty() ? 1 : state_.versions.back().number + 1;
  KernelVersion v{n, std::move(source), origin, parent};
  // A node that cannot be written is said; state.json then keeps the source, and the next open
  // records it (restore_versions).
  if (auto id = journal_.ledger().add_node(version_node(state_, v)))
    v.node = *id;
  else
    human_.show(fmt::format("could not record v{} in the store: {}\n", n, id.error().message));
  state_.versions.push_back(std::move(v));
  state_.current = n;
  keep(fmt::format("versions/v{}{}", n, extension()), state_.versions.back().source);
  record(fmt::format("v{}: {}", n, origin));
}

void HitlSession::update_node(const KernelVersion& v,
                              const std::function<void(store::NodeRecord&)>& change) {
  if (!v.node) return;  // not in the store yet: restore_versions records it with its source
  auto nodes = journal_.ledger().nodes(state_.run_id);
  if (!nodes)
    return human_.show(
        fmt::format("could not update v{}'s node: {}\n", v.number, nodes.error().message));
  for (auto& n : *nodes) {
    if (n.id != v.node) continue;
    change(n);
    if (auto st = journal_.ledger().update_node(n); !st)
      human_.show(fmt::format("could not update v{}'s node: {}\n", v.number, st.error().message));
    return;
  }
}

void HitlSession::judged(const eval::Evaluation& e) {
  if (const auto* v = version(state_.current))
    update_node(*v, [&](store::NodeRecord& n) {
      record_evaluation(n, e);
      n.finished_at = store::now_iso8601();
    });
}

// A command's model tokens go to the version it made or worked on; a plan's wait for the version
// made from it (as an auto iteration's node counts its planner's).
void HitlSession::charge_tokens(const llm::SessionTotals& before, bool to_next_version) {
  auto now = agents_.llm->totals();
  unspent_.usage.input_tokens += now.usage.input_tokens - before.usage.input_tokens;
  unspent_.usage.output_tokens += now.usage.output_tokens - before.usage.output_tokens;
  unspent_.cost_usd += now.cost_usd - before.cost_usd;
  const auto* v = version(state_.current);
  if (to_next_version || !v || !v->node ||
      (unspent_.usage.input_tokens == 0 && unspent_.usage.output_tokens == 0))
    return;
  update_node(*v, [&](store::NodeRecord& n) {
    n.tokens_in += unspent_.usage.input_tokens;
    n.tokens_out += unspent_.usage.output_tokens;
    n.cost_usd += unspent_.cost_usd;
  });
  unspent_ = {};
}

void HitlSession::report_model_error(const llm::LlmError& e) {
  human_.show(
      fmt::format("the model call failed ({}): {}\n", llm::error_kind_name(e.kind), e.message));
}

bool HitlSession::propose(const std::string& source, const std::string& origin) {
  std::string d = unified_diff(current_source(), source, fmt::format("v{}", state_.current),
                               "proposed", journal_.dir());
  if (d.empty()) {
    human_.show("the proposal is identical to the current kernel: nothing to keep\n");
    return false;
  }
  human_.show(d);
  if (!yes(human_.ask("keep this change? [y/n] "))) {
    record(fmt::format("proposal ({}) discarded", origin));
    human_.show("discarded\n");
    return false;
  }
  add_version(source, origin, state_.current);
  human_.show(fmt::format("kept as v{}\n", state_.current));
  return true;
}

void HitlSession::plan(const std::string& hint) {
  for (;;) {
    std::string strategy = hint;
    if (!state_.rejected.empty()) {
      strategy += "\nThe engineer rejected earlier plans, for these reasons (address every one):";
      for (const auto& r : state_.rejected) strategy += "\n- " + r;
    }
    human_.show("planner:\n");
    streamed_ = 0;
    auto p =
        timed_model_call(step_env(), [&] { return agents::plan(agents_, loop_state(), strategy); });
    if (!p) return report_model_error(p.error());
    human_.show(streamed_ ? "\n" : p->markdown + "\n");
    auto answer = human_.ask("approve, edit, or reject with a reason? [a / e / r REASON] ");
    if (!answer) return;
    std::string a = trim(*answer);
    std::string first = lower(a.substr(0, a.find(' ')));
    if (first == "a" || first == "approve" || first == "y" || first == "yes") {
      state_.plan = p->markdown;
      record("plan approved: " + core::shorten(p->strategy, 400));
      keep("plan.md", state_.plan);
      human_.show("plan approved: `implement` writes the kernel\n");
      return;
    }
    if (first == "e" || first == "edit") {
      auto edited = human_.edit(p->markdown, "plan.md");
      if (!edited) return human_.show("the editor failed: plan not changed\n");
      auto parsed = agents::parse_plan(*edited);
      if (!parsed)
        return human_.show("the edited plan is not usable: " + parsed.error().message + "\n");
      state_.plan = *edited;
      record("plan edited and approved");
      keep("plan.md", state_.plan);
      human_.show("edited plan approved\n");
      return;
    }
    if (first == "r" || first == "reject") {
      std::string reason = trim(a.substr(std::min(a.size(), first.size())));
      if (reason.empty()) reason = "not specified";
      state_.rejected.push_back(reason);
      record("plan rejected: " + reason);
      human_.show("rejected; asking the planner again with your reason\n");
      continue;
    }
    human_.show("not an answer (a, e, or r REASON): the plan was not approved\n");
    return;
  }
}

void HitlSession::implement() {
  if (state_.plan.empty())
    return human_.show("no approved plan: run `plan` first (or `ask TEXT`)\n");
  human_.show("coder:\n");
  streamed_ = 0;
  auto parsed = agents::parse_plan(state_.plan);
  agents::Plan p = parsed ? *parsed : agents::Plan{state_.plan, ""};
  auto code = timed_model_call(
      step_env(), [&] { return agents::implement(agents_, loop_state(), p, current_source()); });
  if (!code) return report_model_error(code.error());
  if (state_.current) {
    propose(*code, "implement");
    return;
  }
  add_version(*code, "implement", state_.current);
  // The reply was shown as it streamed; a model that does not stream gets it shown once here.
  if (!streamed_) human_.show(fmt::format("```cpp\n{}```\n", *code));
  human_.show(fmt::format("\nv{} written: `compile` or `check` it\n", state_.current));
}

void HitlSession::ask(const std::string& instruction) {
  if (instruction.empty()) return human_.show("usage: ask TEXT (an instruction for the coder)\n");
  agents::Plan p{state_.plan.empty() ? "(no plan: follow the instruction)" : state_.plan, ""};
  human_.show("coder:\n");
  auto code = timed_model_call(step_env(), [&] {
    return agents::implement(agents_, loop_state(), p, current_source(), instruction);
  });
  if (!code) return report_model_error(code.error());
  if (state_.current)
    propose(*code, "ask: " + instruction);
  else
    add_version(*code, "ask: " + instruction, state_.current);
}

void HitlSession::compile() {
  if (!need_kernel()) return;
  std::string failure = compile_failure(step_env(), current_source());
  if (failure.empty()) {
    human_.show("compiled and link-checked\n");
    record(fmt::format("v{}: compiles", state_.current));
    return;
  }
  state_.last_failure = failure;
  if (const auto* v = version(state_.current))
    update_node(*v, [&](store::NodeRecord& n) {
      n.verdict = std::string(eval::verdict_name(eval::Verdict::compile_error));
      n.reason = core::shorten(failure, 2000);
      n.finished_at = store::now_iso8601();
    });
  human_.show(failure + "`fix` asks the debugger\n");
  record(fmt::format("v{}: compile error", state_.current));
}

void HitlSession::check() {
  if (!need_kernel()) return;
  eval::EvalOptions o = eval_;
  o.time = false;
  auto e = target_.evaluate(ctx_, current_source(), kernel_file(), o);
  judged(e);
  human_.show(fmt::format("verdict   {}\nreason    {}\n", eval::verdict_name(e.verdict), e.reason));
  if (e.mismatch) human_.show(e.mismatch->summary());
  if (e.correct()) {
    state_.attempts.clear();
    state_.last_failure.clear();
    state_.passed_version = state_.current;
  } else {
    state_.last_failure = agents::describe_failure(e);
    human_.show("`fix` asks the debugger\n");
  }
  record(fmt::format("v{}: {}", state_.current, eval::verdict_name(e.verdict)));
}

bool HitlSession::beats_best(const eval::EvalOptions& timing) {
  const KernelVersion* incumbent =
      state_.best && state_.best->candidate ? version(state_.best_version) : nullptr;
  if (!incumbent) {
    human_.show(fmt::format("v{} is the best: the first version timed correct\n", state_.current));
    return true;
  }
  // The best timed again keeps its place with its latest measurement.
  if (state_.best_version == state_.current) return true;
  human_.show(fmt::format("timing v{} against the best (v{}) side by side\n", state_.current,
                          state_.best_version));
  auto d = target_.decide_paired(ctx_, current_source(), incumbent->source,
                                 fmt::format("v{}", state_.best_version), timing);
  human_.show(fmt::format("v{}: {}\n", state_.current, d.describe()));
  record(fmt::format("v{} against the best: {}", state_.current, d.describe()));
  if (d.challenger_won())
    human_.show(fmt::format("v{} is the new best\n", state_.current));
  else
    human_.show(fmt::format("v{} stays the best\n", state_.best_version));
  return d.challenger_won();
}

void HitlSession::mark_best_node() {
  if (const auto* v = version(state_.best_version); v && v->node)
    if (auto st = journal_.ledger().set_best(state_.run_id, v->node); !st)
      human_.show("could not record the best version: " + st.error().message + "\n");
}

void HitlSession::time(bool profile) {
  if (!need_kernel()) return;
  eval::EvalOptions o = eval_;
  o.time = true;
  o.profile_seconds = profile ? 0.5 : 0;
  auto e = target_.evaluate(ctx_, current_source(), kernel_file(), o);
  judged(e);
  if (!e.correct()) {
    human_.show(
        fmt::format("verdict   {}\nreason    {}\n", eval::verdict_name(e.verdict), e.reason));
    if (e.mismatch) human_.show(e.mismatch->summary());
    state_.last_failure = agents::describe_failure(e);
    record(fmt::format("v{}: {}", state_.current, eval::verdict_name(e.verdict)));
    return;
  }
  state_.passed_version = state_.current;
  if (e.baseline) {  // the baseline was measured again beside this version: the latest is the one
                     // to quote
    state_.baseline_ms = e.baseline->median_ms;
    state_.baseline_when =
        fmt::format("measured beside v{}, the latest measurement", state_.current);
  }
  const bool real = target_.target().times_are_performance(e);
  human_.show(timing_text(e, real));
  if (e.profile)
    human_.show(e.profile->summary() + toolchain::format_vector_remarks(e.profile->vectorization));
  if (!real) {
    // Interpret-mode times say nothing of speed: the first correct version is the best.
    if (!state_.best) {
      state_.best = e;
      state_.best->speedup.reset();  // no speedup is kept for the page or the sessions table
      state_.best_version = state_.current;
      mark_best_node();
      human_.show(fmt::format(
          "v{} is the best: the first correct version ({}: times are not performance)\n",
          state_.current, e.timing_basis));
    }
    record(fmt::format("v{}: correct ({}: times are not performance)", state_.current,
                       e.timing_basis));
  } else {
    record(fmt::format("v{}: {:.4g} ms, {}", state_.current, e.candidate->median_ms,
                       speedup_words(e)));
    if (beats_best(o)) {
      state_.best = e;
      state_.best_version = state_.current;
      mark_best_node();
    }
  }
  if (!profile) return;
  human_.show("profiler:\n");
  auto d = timed_model_call(step_env(), [&] {
    return agents::diagnose(agents_, loop_state(), current_source(), e, tuning_[state_.current]);
  });
  if (!d) return report_model_error(d.error());
  human_.show(fmt::format(
      "bottleneck        {}\ndiagnosis         {}\nneeds improvement {}\nsuggestion        {}\n",
      d->bottleneck, d->diagnosis, d->needs_improvement ? "yes" : "no", d->suggestion));
  if (const auto* v = version(state_.current))
    update_node(*v, [&](store::NodeRecord& n) {  // worded as auto's nodes are
      n.diagnosis =
          fmt::format("{} (bottleneck: {}); next: {}", d->diagnosis, d->bottleneck, d->suggestion);
      n.needs_improvement = d->needs_improvement;
    });
  // The planner reads this history: the suggestion is kept, as in auto's.
  record(
      fmt::format("profiler on v{}: {} (bottleneck: {}; needs improvement: {}). Suggested next: {}",
                  state_.current, core::shorten(d->diagnosis, 400), d->bottleneck,
                  d->needs_improvement ? "yes" : "no", core::shorten(d->suggestion, 400)));
}

void HitlSession::tune() {
  if (!need_kernel()) return;
  // The tuner rebuilds a C-ABI kernel with -D values; a Python kernel has no such switch.
  if (auto why = target_.target().untunable_reason(); !why.empty())
    return human_.show("not tuned: " + why + "\n");
  eval::EvalOptions o = eval_;
  o.time = true;
  auto r = agents::tune(target_, ctx_, current_source(), o, {},
                        [&](std::string_view m) { human_.show(std::string(m) + "\n"); });
  if (!r) return human_.show("tunables not usable: " + r.error().message + "\n");
  if (r->tunables.empty())
    return human_.show("the kernel declares no tunables (`// kforge:tune NAME = {a, b, c}`)\n");
  human_.show(r->table() + r->summary() + "\n");
  if (!r->best || !r->recheck || !r->recheck->correct()) return;
  if (propose(r->tuned_source, "tune: " + agents::describe(*r->best)))
    tuning_[state_.current] = r->table();
}

void HitlSession::fix() {
  if (!need_kernel()) return;
  if (state_.last_failure.empty())
    return human_.show("nothing to fix: no failure recorded (run `compile`, `check` or `time`)\n");
  human_.show("debugger:\n");
  auto f = timed_model_call(step_env(), [&] {
    return agents::fix(agents_, loop_state(), current_source(), state_.last_failure,
                       state_.attempts);
  });
  if (!f) return report_model_error(f.error());
  human_.show(fmt::format("error  {}\ncause  {}\nfix    {}\n", f->summary.error, f->summary.cause,
                          f->summary.fix));
  state_.attempts.push_back({state_.last_failure, f->summary});
  if (propose(f->source, "fix: " + core::shorten(f->summary.cause, 120)))
    state_.last_failure.clear();
}

void HitlSession::edit_plan() {
  auto edited = human_.edit(state_.plan, "plan.md");
  if (!edited) return human_.show("the editor failed: plan not changed\n");
  if (*edited == state_.plan) return human_.show("plan unchanged\n");
  state_.plan = *edited;
  keep("plan.md", state_.plan);
  record("plan edited");
  human_.show("plan updated\n");
}

void HitlSession::edit_kernel() {
  auto edited = human_.edit(current_source(), kernel_file());
  if (!edited) return human_.show("the editor failed: kernel not changed\n");
  if (*edited == current_source()) return human_.show("kernel unchanged\n");
  add_version(*edited, "edit", state_.current);
  human_.show(fmt::format("saved as v{}\n", state_.current));
}

void HitlSession::diff(const std::string& args) {
  std::istringstream in(args);
  int a = 0, b = 0;
  in >> a >> b;
  if (!b) b = state_.current;
  if (!a) a = b - 1;
  const auto* va = version(a);
  const auto* vb = version(b);
  if (!va || !vb)
    return human_.show(fmt::format("no such versions: {} and {} (see `history`)\n", a, b));
  std::string d = unified_diff(va->source, vb->source, fmt::format("v{}", a), fmt::format("v{}", b),
                               journal_.dir());
  human_.show(d.empty() ? "identical\n" : d);
}

void HitlSession::show_version(const std::string& arg) {
  int n = arg.empty() ? state_.current : std::atoi(arg.c_str());
  const auto* v = version(n);
  if (!v) return human_.show(fmt::format("no version {} (see `history`)\n", n));
  human_.show(fmt::format("v{} ({}):\n```{}\n{}```\n", v->number, v->origin,
                          target_.target().agent_material().code_fence, v->source));
}

void HitlSession::revert(const std::string& arg) {
  int n = std::atoi(arg.c_str());
  const auto* v = version(n);
  if (!v) return human_.show(fmt::format("no version {} (see `history`)\n", n));
  add_version(v->source, fmt::format("revert to v{}", n), n);
  state_.last_failure.clear();
  human_.show(fmt::format("v{} is v{}'s kernel again\n", state_.current, n));
}

bool HitlSession::accept(const std::string& args) {
  if (!need_kernel()) return true;
  // A kernel leaves the session only after the judge has passed it, unless the human insists.
  std::string path_arg = args;
  bool force = false;
  if (auto at = path_arg.find("--force"); at != std::string::npos) {
    force = true;
    path_arg.erase(at, 7);
    path_arg = trim(path_arg);
  }
  if (state_.passed_version != state_.current && !force) {
    human_.show(fmt::format(
        "v{} has not passed the check (run `check` or `time`; `accept --force` writes it anyway)\n",
        state_.current));
    record(fmt::format("accept refused: v{} not checked", state_.current));
    return true;
  }
  std::filesystem::path path = path_arg.empty() ? std::filesystem::path(state_.task + extension())
                                                : std::filesystem::path(path_arg);
  if (auto st = core::write_atomic(path, current_source()); !st) {
    human_.show(st.error().message + "\n");
    return true;
  }
  keep(target_.best_file(), current_source());
  record(fmt::format("accepted v{} → {}", state_.current, path.string()));
  human_.show(fmt::format("v{} written to {}\n", state_.current, path.string()));
  return false;
}

void HitlSession::status() {
  auto t = agents_.llm->totals();
  std::string s = fmt::format("task      {} (size {}), {} thread(s); baseline {:.4g} ms\n",
                              state_.task, state_.size, eval_.threads, state_.baseline_ms);
  s += fmt::format("plan      {}\n", state_.plan.empty() ? "none approved" : "approved");
  const auto* v = version(state_.current);
  s += v ? fmt::format("kernel    v{} ({})\n", v->number, v->origin) : "kernel    none\n";
  if (!state_.last_failure.empty())
    s += "failure   " + state_.last_failure.substr(0, state_.last_failure.find('\n')) + "\n";
  if (state_.best && state_.best->candidate &&
      !target_.target().times_are_performance(*state_.best))
    s += fmt::format("best      v{}: the first correct version ({}: times are not performance)\n",
                     state_.best_version, state_.best->timing_basis);
  else if (state_.best && state_.best->candidate)
    s += fmt::format("best      v{}: {:.4g} ms, {}\n", state_.best_version,
                     state_.best->candidate->median_ms, speedup_words(*state_.best));
  const char* est = t.estimated ? "~" : "";
  s += fmt::format("models    {} calls, {}{} tokens in, {}{} out, ${:.4f}{}\n", t.calls, est,
                   t.usage.input_tokens, est, t.usage.output_tokens, t.cost_usd,
                   t.estimated ? " (~ estimated: the provider reported no usage)" : "");
  human_.show(s);
}

void HitlSession::cost() {
  auto usage = store::llm_usage(journal_.db(), state_.run_id);
  if (!usage) return human_.show(usage.error().message + "\n");
  // Columns as wide as their widest cell, two spaces apart: a long model name (a cmd: command
  // line) ran into the next header with fixed widths.
  std::size_t role_w = 4, model_w = 5;
  for (const auto& u : *usage) {
    role_w = std::max(role_w, u.role.size());
    model_w = std::max(model_w, u.provider.size() + 1 + u.model.size());
  }
  std::string s = fmt::format("{:<{}}  {:<{}}  {:>5}  {:>10}  {:>10}  {:>10}\n", "role", role_w,
                              "model", model_w, "calls", "tokens in", "tokens out", "cost $");
  bool estimated = false;
  for (const auto& u : *usage) {
    estimated = estimated || u.estimated;
    const char* est = u.estimated ? "~" : "";
    s += fmt::format("{:<{}}  {:<{}}  {:>5}  {:>10}  {:>10}  {:>10.4f}\n", u.role, role_w,
                     u.provider + ":" + u.model, model_w, u.calls,
                     est + std::to_string(u.input_tokens), est + std::to_string(u.output_tokens),
                     u.cost_usd);
  }
  auto t = agents_.llm->totals();
  s += fmt::format("total: {} calls, ${:.4f}{}\n", t.calls, t.cost_usd,
                   t.unpriced ? " (some unpriced)" : "");
  if (estimated)
    s += "~ estimated: the provider reported no usage, so kforge counted the text's tokens\n";
  human_.show(s);
}

void HitlSession::help() {
  human_.show(
      R"(plan [hint]     the planner proposes a plan; approve it, edit it, or reject it with a reason
implement       the coder writes the kernel from the approved plan
ask TEXT        an instruction for the coder ("use an 8x16 register tile"); shown as a diff
compile         compile and link-check the current kernel
check           check it on the secret inputs (verdict, mismatch report)
time            time it against the baseline (median, spread, speedup, roofline)
profile         time it, sample its hot lines, show the loops the compiler vectorized, ask the profiler
tune            search its declared tunables; the tuned kernel is re-checked and shown as a diff
fix             the debugger proposes a fix for the last failure; shown as a diff
edit plan       open the plan in $EDITOR
edit            open the kernel in $EDITOR; the edited version becomes the current one
diff [A] [B]    differences between versions (default: the previous and the current)
history         versions and what happened
show [N]        a version's source
revert N        make version N the current kernel again
accept [FILE]   write the current kernel out (default TASK.cpp) and end; only once it passed
                `check` or `time` (`accept --force [FILE]` writes it anyway)
status, cost    where things stand; model use by role
help, quit
)");
}

bool HitlSession::execute(const std::string& raw) {
  std::string line = trim(raw);
  if (line.empty()) return true;
  std::string word = lower(line.substr(0, line.find(' ')));
  std::string rest = line.size() > word.size() ? trim(line.substr(word.size())) : "";
  const auto tokens_before = agents_.llm->totals();
  bool go_on = true;
  if (word == "plan")
    plan(rest);
  else if (word == "implement")
    implement();
  else if (word == "ask")
    ask(rest);
  else if (word == "compile")
    compile();
  else if (word == "check")
    check();
  else if (word == "time")
    time(false);
  else if (word == "profile")
    time(true);
  else if (word == "tune")
    tune();
  else if (word == "fix")
    fix();
  else if (word == "edit" && lower(rest) == "plan")
    edit_plan();
  else if (word == "edit")
    edit_kernel();
  else if (word == "diff")
    diff(rest);
  else if (word == "history") {
    for (const auto& v : state_.versions)
      human_.show(
          fmt::format("v{}{} {}\n", v.number, v.number == state_.current ? "*" : " ", v.origin));
    for (const auto& h : state_.history) human_.show("  · " + h + "\n");
  } else if (word == "show")
    show_version(rest);
  else if (word == "revert")
    revert(rest);
  else if (word == "accept")
    go_on = accept(rest);
  else if (word == "status")
    status();
  else if (word == "cost")
    cost();
  else if (word == "help" || word == "?")
    help();
  else if (word == "quit" || word == "exit")
    go_on = false;
  else
    human_.show(fmt::format("unknown command '{}': type `help`\n", word));
  charge_tokens(tokens_before, word == "plan");
  save();
  return go_on;
}

}  // namespace kforge::modes
