// Compile/check/debug loops and the timed evaluation.
#include "kforge/modes/iteration_steps.h"

#include <fmt/format.h>

#include "kforge/core/clock.h"

namespace kforge::modes {

using core::seconds_since;

std::string compile_failure(const StepEnv& env, const std::string& source) {
  return env.target.build_failure(*env.ctx, source, env.eval);
}

namespace {

// Asks the debugger for a fix of `failure`; records the attempt. False when the model failed.
bool ask_for_fix(const StepEnv& env, DebugOutcome& out, const std::string& failure,
                 std::vector<agents::DebugAttempt>& attempts) {
  auto fix = timed_model_call(
      env, [&] { return agents::fix(*env.agents, *env.state, out.source, failure, attempts); });
  if (!fix) {
    if (fix.kind() != llm::ErrorKind::malformed)
      out.model_error = fix.error();
    else
      attempts.push_back({failure, {"", "(the debugger's reply was malformed)", "none"}});
    return false;
  }
  attempts.push_back({failure, fix->summary});
  out.source = fix->source;
  ++out.fixes;
  env.say(fmt::format("debugger: {} → {}", fix->summary.cause.substr(0, 120),
                      fix->summary.fix.substr(0, 120)));
  return true;
}

}  // namespace

DebugOutcome compile_with_fixes(const StepEnv& env, std::string source, int max_fixes,
                                std::vector<agents::DebugAttempt>& attempts) {
  DebugOutcome out;
  out.source = std::move(source);
  for (;;) {
    auto t = std::chrono::steady_clock::now();
    std::string failure = compile_failure(env, out.source);
    env.clock->compile_s += seconds_since(t);
    if (failure.empty()) {
      out.ok = true;
      return out;
    }
    // A compile killed by Ctrl-C failed for no fault of the source: no fix is asked for.
    if (env.eval.cancel && env.eval.cancel->load()) return out;
    env.say(fmt::format("compile failed: {}",
                        failure.substr(0, failure.find('\n', failure.find('\n') + 1))));
    if (out.fixes >= max_fixes || !ask_for_fix(env, out, failure, attempts)) return out;
  }
}

DebugOutcome check_with_fixes(const StepEnv& env, std::string source, int max_fixes,
                              std::vector<agents::DebugAttempt>& attempts) {
  DebugOutcome out;
  out.source = std::move(source);
  for (;;) {
    eval::EvalOptions o = env.eval;
    o.time = false;
    o.profile_seconds = 0;
    o.progress = nullptr;
    auto t = std::chrono::steady_clock::now();
    auto e = env.target.evaluate(*env.ctx, out.source, env.target.kernel_file(), o);
    env.clock->check_s += seconds_since(t);
    out.evaluation = e;
    if (e.correct()) {
      out.ok = true;
      return out;
    }
    if (e.verdict == eval::Verdict::interrupted) return out;  // Ctrl-C: nothing to fix
    env.say(fmt::format("check: {} — {}", eval::verdict_name(e.verdict), e.reason.substr(0, 160)));
    if (out.fixes >= max_fixes || !ask_for_fix(env, out, agents::describe_failure(e), attempts))
      return out;
  }
}

eval::Evaluation time_and_profile(const StepEnv& env, const std::string& source,
                                  double profile_seconds) {
  eval::EvalOptions o = env.eval;
  o.time = true;
  o.profile_seconds = profile_seconds;
  o.progress = nullptr;
  auto t = std::chrono::steady_clock::now();
  auto e = env.target.evaluate(*env.ctx, source, env.target.kernel_file(), o);
  env.clock->time_s += seconds_since(t);
  return e;
}

}  // namespace kforge::modes
