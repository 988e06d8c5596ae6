// Setting a hitl session up, the same way for the terminal and the page.
#include "kforge/cli/hitl_setup.h"

#include <fmt/format.h>

#include "kforge/cli/common.h"
#include "kforge/core/fs.h"
#include "kforge/core/paths.h"
#include "kforge/core/threads.h"
#include "kforge/llm/interrupt.h"
#include "kforge/modes/auto_loop.h"
#include "kforge/modes/hitl_versions.h"
#include "kforge/store/process_owner.h"
#include "kforge/store/store.h"

namespace kforge::cli {

std::unique_ptr<modes::HitlSession> HitlSetup::make_session(modes::Human& human) {
  return std::make_unique<modes::HitlSession>(*ctx, *machine, stack->env, *journal, eval, human,
                                              state, target);
}

void HitlSetup::finish() {
  auto ended = journal->ledger().update_run(
      state.run_id, [](store::RunRecord& run) { run.state = store::RunState::finished; });
  if (!ended) fmt::print(stderr, "kforge hitl: {}\n", ended.error().message);
}

namespace {

// One front end at a time: a session still open in a live kforge process (a terminal's hitl or a
// serve's page) is not resumed a second time, or the two would overwrite each other's state.
void refuse_if_open_elsewhere(const std::string& id) {
  auto db = store::open_store(store::store_path(core::state_dir()));
  if (!db) return;
  auto run = store::find_run(**db, id);
  if (!run || !*run) return;
  const auto& r = **run;
  if (store::effective_state(r) == store::RunState::running &&
      r.owner != store::current_process_owner())
    throw UsageError(
        fmt::format("hitl session {} is open in another kforge process ({}): quit it there first",
                    id, r.owner));
}

// The session's target: --target and --dtype for a new one; a resumed one keeps its own (another
// is refused, like another partner). Refused before any model call when it cannot run here.
target::BoundTarget hitl_target(const HitlCliOptions& o, const modes::HitlState* stored) {
  std::string name = o.target, dtype = o.dtype;
  if (stored) {
    const std::string kept = stored->target.empty() ? "cpp" : stored->target;
    if (!name.empty() && name != kept)
      throw UsageError(fmt::format(
          "hitl session {} is for --target {}: its kernels and baseline are that target's "
          "(--target {} would need a new session)",
          o.resume, kept, name));
    if (!dtype.empty() && dtype != stored->dtype)
      throw UsageError(fmt::format("hitl session {} computes in --dtype {}: a resume keeps it",
                                   o.resume, stored->dtype));
    name = stored->target;
    dtype = stored->dtype;
  }
  // A resumed session keeps the partner it was measured against (checked below).
  return bind_mode_target("hitl", name, dtype, stored ? "" : o.beat);
}

}  // namespace

std::unique_ptr<HitlSetup> open_hitl(const HitlCliOptions& o,
                                     const std::function<void(const std::string&)>& say) {
  auto s = std::make_unique<HitlSetup>();
  std::string task = o.task, size = o.size, model = o.model;
  if (!o.resume.empty()) {
    refuse_if_open_elsewhere(o.resume);
    auto text = core::read_text(core::state_dir() / "sessions" / o.resume / "state.json");
    if (!text)
      throw UsageError(
          fmt::format("no hitl session {} to resume: {}", o.resume, text.error().message));
    auto j = nlohmann::json::parse(*text, nullptr, false);
    if (!j.is_object())
      throw UsageError(fmt::format("hitl session {}: its state.json is not JSON", o.resume));
    s->state = modes::HitlState::from_json(j);
    task = s->state.task;
    size = s->state.size;
    if (model.empty()) model = s->state.model;  // the session remembers its model
  }
  if (task.empty()) throw UsageError("kforge hitl needs a TASK (or --resume ID)");
  s->target = hitl_target(o, o.resume.empty() ? nullptr : &s->state);
  s->spec = load_task_arg(task);
  s->compiler = make_compiler();
  auto ctx = eval::TaskContext::create(s->spec, size, *s->compiler, core::state_dir());
  if (!ctx) throw UsageError(ctx.error().message);
  s->ctx = std::move(*ctx);
  AgentStackOptions stack_options{
      fmt::format("kforge hitl {}{}", s->spec.id, target_words(s->target)),
      model,
      o.config,
      o.prompts,
      o.resume,
      o.max_usd,
      o.max_tokens,
      false};
  stack_options.target = &s->target.target();
  s->stack = make_agent_stack(stack_options);
  s->lock = make_machine_lock();
  auto machine = this_machine(s->lock.get());  // after the models are known to be usable
  if (!machine) throw UsageError(machine.error().message);
  s->machine = std::move(*machine);
  auto journal = modes::RunJournal::open(core::state_dir(), s->stack->session->id());
  if (!journal) throw UsageError(journal.error().message);
  s->journal.emplace(std::move(*journal));

  auto& eo = s->eval;
  eo.threads = core::thread_count(o.threads);
  eo.machine = &*s->machine;
  eo.machine_lock = s->lock.get();
  eo.quiet_waiter = &quiet_waiter();
  eo.cancel = llm::interrupt_flag();  // Ctrl-C stops the step in flight (cmd_hitl.cpp)
  eo.time_budget_s = o.budget;
  auto& state = s->state;
  // The partner every kernel is paired with: chosen when the session starts (its baseline was
  // measured against it) and kept by every resume. Sessions saved before --beat were libtorch's.
  // Another target's partner is its own baseline (pallas: XLA; cuda: PyTorch eager on the device).
  if (o.resume.empty())
    state.partner =
        mode_partner(s->target, o.beat, s->spec.id, s->ctx->task().size, eo.threads, *s->machine);
  const std::string partner = state.partner.empty() ? "libtorch" : state.partner;
  // "baseline" names libtorch where the peers pair the kernels, and the target's own baseline for
  // the others.
  const std::string asked =
      o.beat == "baseline" && s->target.target().peers_apply() ? "libtorch" : o.beat;
  if (!o.resume.empty() && !asked.empty() && asked != "fastest" && asked != partner)
    throw UsageError(fmt::format(
        "hitl session {} is paired with {}: its baseline was measured against it (--beat {} "
        "would need a new session)",
        o.resume, partner, o.beat));
  enter_mode_target(s->target, partner, *s->lock, eo);
  if (o.resume.empty()) {
    state.run_id = s->stack->session->id();
    state.task = s->spec.id;
    state.size = s->ctx->task().size;
    state.model = model;
    state.target = recorded_target(s->target);
    state.dtype = s->target.dtype();
    if (s->target.target().baseline_timed_alone()) {
      say(fmt::format("kforge hitl: session {} — {} (size {}); measuring the baseline…\n",
                      state.run_id, s->spec.id, state.size));
      auto baseline = modes::measure_baseline_ms(*s->ctx, eo);
      // The baseline is the task's own trusted code: when it cannot be built or fails its check,
      // the suite is at fault, not the command.
      if (!baseline) throw InternalError(baseline.error().message);
      state.baseline_ms = *baseline;
    } else {
      // The target's baseline is timed beside each kernel by its judge.
      say(fmt::format("kforge hitl: session {} — {} (size {}), target {}\n", state.run_id,
                      s->spec.id, state.size, s->target.target().name()));
    }
    if (auto st = s->journal->ledger().start_run(
            {state.run_id, "hitl", s->spec.id, state.size, store::RunState::running, "{}"});
        !st)
      throw UsageError(st.error().message);
  } else {
    // Its versions read back from their nodes; those an older kforge kept in state.json only are
    // recorded as nodes now (with a run row, for a store that had none), and state.json is
    // rewritten to name them: nothing is lost, and a second open records nothing again.
    auto recorded = modes::restore_versions(state, s->journal->ledger());
    if (!recorded) throw UsageError(recorded.error().message);
    if (*recorded) {
      if (auto st = s->journal->write("state.json", state.to_json().dump(2)); !st)
        throw UsageError(st.error().message);
      say(fmt::format("kforge hitl: recorded {} version(s) of session {} in the store\n", *recorded,
                      state.run_id));
    }
    // A resumed session is running again, owned by this process (it was marked finished when it
    // was left); the run row exists (restore_versions made it for an older store).
    if (auto st = s->journal->ledger().update_run(
            state.run_id, [](store::RunRecord& run) { run.state = store::RunState::running; });
        !st)
      throw UsageError(st.error().message);
    say(fmt::format("kforge hitl: resumed session {} — {} (size {}), at v{}\n", state.run_id,
                    state.task, state.size, state.current));
  }
  if (state.baseline_ms > 0)
    say(fmt::format("baseline {:.4g} ms. Type `help` for the commands.\n", state.baseline_ms));
  else
    say("the baseline is timed beside each kernel. Type `help` for the commands.\n");
  return s;
}

}  // namespace kforge::cli
