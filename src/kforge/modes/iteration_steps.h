#pragma once
// The steps of one optimization iteration, shared by `kforge auto` (which chains them) and
// `kforge hitl` (where a human runs them one at a time): compile with a debug loop, check with a
// debug loop, tune, time and profile, diagnose. Each step reports what happened; none throws.

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kforge/agents/agents.h"
#include "kforge/agents/tuner.h"
#include "kforge/eval/evaluate.h"
#include "kforge/targets/bound_target.h"

namespace kforge::modes {

// Wall time by kind of work, for the per-iteration breakdown in reports.
struct PhaseClock {
  double model_s = 0, compile_s = 0, check_s = 0, tune_s = 0, time_s = 0;
  double total() const { return model_s + compile_s + check_s + tune_s + time_s; }
};

struct StepEnv {
  const eval::TaskContext* ctx = nullptr;
  agents::AgentEnv* agents = nullptr;
  agents::LoopState* state = nullptr;
  eval::EvalOptions eval;  // threads, budget, machine (time/profile set per step)
  std::function<void(std::string_view)> say;  // progress lines
  PhaseClock* clock = nullptr;
  target::BoundTarget target;  // its file name, compiler and judge (default: cpp)
};

// The outcome of a step that may have asked the debugger for fixes.
struct DebugOutcome {
  std::string source;  // the last version (fixed or not)
  std::optional<eval::Evaluation>
      evaluation;  // the last verdict (the check step), or the compile's
  bool ok = false;
  std::optional<llm::LlmError> model_error;  // the model failed (budget, cancel, …): stop
  int fixes = 0;
};

// The compile's (and link check's) failure as the debugger reads it, or "" when it compiles.
std::string compile_failure(const StepEnv& env, const std::string& source);

// Compiles (and link-checks); on failure asks the debugger, up to max_fixes times. `attempts`
// keeps every failure and fix of the iteration so the debugger sees them all.
DebugOutcome compile_with_fixes(const StepEnv& env, std::string source, int max_fixes,
                                std::vector<agents::DebugAttempt>& attempts);

// Checks on the secret inputs (no timing); on a failing verdict asks the debugger, with the
// mismatch analysis, up to max_fixes times.
DebugOutcome check_with_fixes(const StepEnv& env, std::string source, int max_fixes,
                              std::vector<agents::DebugAttempt>& attempts);

// Times against the baseline and profiles.
eval::Evaluation time_and_profile(const StepEnv& env, const std::string& source,
                                  double profile_seconds);

// Wraps agent calls with the model clock.
template <typename F>
auto timed_model_call(const StepEnv& env, F&& f) {
  auto start = std::chrono::steady_clock::now();
  auto r = f();
  env.clock->model_s +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace kforge::modes
