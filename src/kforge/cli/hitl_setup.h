#pragma once
// Everything a hitl session runs on, set up once for the terminal (`kforge hitl`) and the page
// (`kforge serve`): the task and its context, the compiler, the models, the machine and its lock,
// the session's journal, the evaluation options and the state (new, with the baseline measured,
// or read back for a resume).

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "kforge/cli/agent_stack.h"
#include "kforge/cli/mode_target.h"
#include "kforge/eval/machine.h"
#include "kforge/eval/machine_lock.h"
#include "kforge/eval/task_context.h"
#include "kforge/modes/hitl_session.h"
#include "kforge/modes/run_journal.h"
#include "kforge/toolchain/cpp_compiler.h"
#include "kforge/web/hitl_backend.h"

namespace kforge::cli {

struct HitlCliOptions {
  std::string task, size, model, config, prompts, resume;
  std::string beat;  // --beat; "" = the session's own partner, or "fastest" for a new session
  std::string target, dtype;  // --target, --dtype; "" = the session's own, or cpp / f32 if new
  int threads = 0;
  double max_usd = 0, budget = 1.0;
  std::int64_t max_tokens = 0;
};

class HitlSetup : public web::HitlBackend {
 public:
  const std::string& run_id() const override { return state.run_id; }
  std::unique_ptr<modes::HitlSession> make_session(modes::Human& human) override;
  void finish() override;

  core::TaskSpec spec;
  std::unique_ptr<toolchain::CppCompiler> compiler;
  std::optional<eval::TaskContext> ctx;
  std::unique_ptr<AgentStack> stack;
  std::unique_ptr<eval::MachineLock> lock;
  std::optional<eval::MachineProfile> machine;
  std::optional<modes::RunJournal> journal;
  eval::EvalOptions eval;
  modes::HitlState state;
  target::BoundTarget target;  // the session's --target, kept by every resume
};

// Throws UsageError (no such session or task, no model) or InternalError (the baseline fails).
// `say` receives the lines the set-up has to tell ("measuring the baseline…").
std::unique_ptr<HitlSetup> open_hitl(const HitlCliOptions& o,
                                     const std::function<void(const std::string&)>& say);

}  // namespace kforge::cli
