// kforge hitl TASK [--model M] [--size S] | --resume ID: the human-in-the-loop REPL. Reads
// commands from a terminal (line editing, history) or, when stdin is not a terminal, one per
// line, so sessions can be scripted.
#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>

#include "kforge/cli/agent_stack.h"
#include "kforge/cli/commands.h"
#include "kforge/cli/common.h"
#include "kforge/cli/line_reader.h"
#include "kforge/cli/settings.h"
#include "kforge/core/fs.h"
#include "kforge/core/paths.h"
#include "kforge/core/threads.h"
#include "kforge/modes/auto_loop.h"
#include "kforge/modes/hitl_session.h"
#include "kforge/store/store.h"

namespace kforge::cli {
namespace {

struct HitlCliOptions {
  std::string task, size, model, config, prompts, resume;
  int threads = 0;
  double max_usd = 0, budget = 1.0;
  std::int64_t max_tokens = 0;
};

// The terminal (or pipe) as the session's human.
class CliHuman : public modes::Human {
 public:
  CliHuman(LineReader& reader, std::filesystem::path scratch)
      : reader_(reader), scratch_(std::move(scratch)) {}
  void show(std::string_view text) override {
    fmt::print("{}", text);
    std::fflush(stdout);
  }
  std::optional<std::string> ask(const std::string& prompt) override {
    return reader_.read(prompt);
  }
  std::optional<std::string> edit(const std::string& text, const std::string& file_name) override {
    auto path = scratch_ / "edit" / file_name;
    if (!core::write_atomic(path, text)) return std::nullopt;
    std::string command = fmt::format("{} '{}'", current_settings().editor, path.string());
    if (std::system(command.c_str()) != 0) return std::nullopt;
    auto edited = core::read_text(path);
    if (!edited) return std::nullopt;
    return *edited;
  }

 private:
  LineReader& reader_;
  std::filesystem::path scratch_;
};

int run_hitl(const HitlCliOptions& o) {
  modes::HitlState state;
  std::string task = o.task, size = o.size, model = o.model;
  if (!o.resume.empty()) {
    auto text = core::read_text(core::state_dir() / "sessions" / o.resume / "state.json");
    if (!text)
      throw UsageError(
          fmt::format("no hitl session {} to resume: {}", o.resume, text.error().message));
    state = modes::HitlState::from_json(nlohmann::json::parse(*text, nullptr, false));
    task = state.task;
    size = state.size;
    if (model.empty()) model = state.model;  // the session remembers its model
  }
  if (task.empty()) throw UsageError("kforge hitl needs a TASK (or --resume ID)");
  auto spec = load_task_arg(task);
  auto compiler = make_compiler();
  auto ctx = eval::TaskContext::create(spec, size, *compiler, core::state_dir());
  if (!ctx) throw UsageError(ctx.error().message);
  auto stack = make_agent_stack({fmt::format("kforge hitl {}", spec.id), model, o.config, o.prompts,
                                 o.resume, o.max_usd, o.max_tokens, false});
  auto lock = make_machine_lock();
  auto machine = this_machine(lock.get());  // after the models are known to be usable
  if (!machine) throw UsageError(machine.error().message);
  auto journal = modes::RunJournal::open(core::state_dir(), stack->session->id());
  if (!journal) throw UsageError(journal.error().message);

  eval::EvalOptions eo;
  eo.threads = core::thread_count(o.threads);
  eo.machine = &*machine;
  eo.machine_lock = lock.get();
  eo.quiet_waiter = &quiet_waiter();
  eo.time_budget_s = o.budget;
  if (o.resume.empty()) {
    state.run_id = stack->session->id();
    state.task = spec.id;
    state.size = ctx->task().size;
    state.model = model;
    fmt::print("kforge hitl: session {} — {} (size {}); measuring the baseline…\n", state.run_id,
               spec.id, state.size);
    auto baseline = modes::measure_baseline_ms(*ctx, eo);
    // The baseline is the task's own trusted code: when it cannot be built or fails its check, the
    // suite is at fault, not the command.
    if (!baseline) throw InternalError(baseline.error().message);
    state.baseline_ms = *baseline;
    if (auto st = journal->ledger().start_run(
            {state.run_id, "hitl", spec.id, state.size, store::RunState::running, "{}"});
        !st)
      throw UsageError(st.error().message);
  } else {
    fmt::print("kforge hitl: resumed session {} — {} (size {}), at v{}\n", state.run_id, state.task,
               state.size, state.current);
  }
  fmt::print("baseline {:.4g} ms. Type `help` for the commands.\n", state.baseline_ms);

  auto reader = make_line_reader(journal->dir() / "history");
  CliHuman human(*reader, journal->dir());
  modes::HitlSession session(*ctx, *machine, stack->env, *journal, eo, human, std::move(state));
  for (;;) {
    auto line = reader->read(session.prompt());
    if (!line) break;
    bool go_on = session.execute(*line);
    llm::clear_interrupt();  // Ctrl-C cancels the step in flight, not the session
    if (!go_on) break;
  }
  auto ended = journal->ledger().update_run(
      session.state().run_id, [](store::RunRecord& run) { run.state = store::RunState::finished; });
  if (!ended) fmt::print(stderr, "kforge hitl: {}\n", ended.error().message);
  fmt::print("session {} saved; resume with: kforge hitl --resume {}\n", session.state().run_id,
             session.state().run_id);
  return 0;
}

}  // namespace

void add_hitl(CommandLine& cmd) {
  auto o = std::make_shared<HitlCliOptions>();
  cmd.bind("task", o->task);
  cmd.bind("resume", o->resume);
  cmd.bind("model", o->model);
  cmd.bind("size", o->size);
  cmd.bind("threads", o->threads);
  cmd.bind("budget", o->budget);
  cmd.bind("max-usd", o->max_usd);
  cmd.bind("max-tokens", o->max_tokens);
  cmd.bind("prompts", o->prompts);
  cmd.bind("config", o->config);
  cmd.on_run([o] { return run_hitl(*o); });
}

}  // namespace kforge::cli
