// The four LLM roles: each fills its template and names its parser. What each block says comes
// from loop_state.cpp, one function per fact, so a request carries each fact once: the machine in
// the system prompt, the task (with kforge_task.h and its notes) and the budget in every request.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "kforge/agents/agent_call.h"
#include "kforge/agents/cheaper_algorithm.h"
#include "kforge/core/shorten.h"
#include "kforge/core/utf8.h"
#include "kforge/toolchain/diagnostics.h"

namespace kforge::agents {
namespace {

// An earlier fix's failure is shown in full up to this; the current one always is.
constexpr std::size_t kEarlierFailureBytes = 1500;

// The buffers, then what the target adds (cuda: the stream).
int parameter_count(const LoopState& s) {
  return static_cast<int>(s.task->task().inputs.size() + s.task->task().outputs.size()) +
         s.dialect.extra_parameters;
}

// What is left of the model budget (--max-usd, --max-tokens); "" without limits.
std::string model_budget(const AgentEnv& env) {
  if (!env.llm) return "";
  const llm::Budget& b = env.llm->budget();
  std::string out;
  if (b.limits().max_usd > 0)
    out += fmt::format("Model budget: ${:.4f} of ${:.2f} left.\n",
                       std::max(0.0, b.limits().max_usd - b.spent_usd()), b.limits().max_usd);
  if (b.limits().max_tokens > 0)
    out += fmt::format(
        "Model budget: {} of {} tokens left{}.\n",
        std::max<std::int64_t>(0, b.limits().max_tokens - b.spent_tokens()), b.limits().max_tokens,
        env.llm->totals().estimated ? " (counted by kforge: the model reports none)" : "");
  return out;
}

std::string budget_text(const AgentEnv& env, const LoopState& s) {
  return describe_budget(s) + model_budget(env);
}

llm::LlmError config_error(const Error& e) {
  return llm::LlmError{llm::ErrorKind::config, e.message, {}};
}

std::string fix_history(const std::vector<DebugAttempt>& attempts) {
  std::string history;
  for (std::size_t i = 0; i < attempts.size(); ++i)
    history += fmt::format("{}. failure: {}\n   cause found: {}\n   fix applied: {}\n", i + 1,
                           core::shorten(attempts[i].failure, kEarlierFailureBytes),
                           attempts[i].fix.cause, attempts[i].fix.fix);
  return history.empty() ? "(none: this is the first)" : history;
}

}  // namespace

Result<std::string> system_prompt(const AgentEnv& env, const LoopState& s) {
  return env.prompts->render("system",
                             {{"machine", describe_machine(s)}, {"partner", s.baseline_name}});
}

std::string playbook_excerpts(const AgentEnv& env, const LoopState& s, const std::string& query,
                              int sections) {
  if (!env.playbook) return "(none)\n";
  std::string out;
  for (const auto& sec : env.playbook->select(playbook_fit(s), query, sections))
    out += sec.render() + "\n";
  return out.empty() ? "(no matching section)\n" : out;
}

llm::LlmResultOf<Plan> plan(const AgentEnv& env, const LoopState& s, const std::string& strategy) {
  auto system = system_prompt(env, s);
  if (!system) return config_error(system.error());
  const auto& spec = s.task->spec();
  std::string query =
      spec.title + " " + fmt::format("{}", fmt::join(spec.tags, " ")) + " " + strategy;
  if (s.best && s.best->diagnosis)
    query += " " + s.best->diagnosis->bottleneck + " " + s.best->diagnosis->suggestion;
  auto user = env.prompts->render(
      "planner",
      {{"task", describe_task(*s.task, s.dialect)},
       {"budget", budget_text(env, s)},
       {"standing", describe_standing(s)},
       {"history", describe_history(s)},
       {"strategy",
        strategy.empty() ? "Your choice: the change with the largest expected gain." : strategy},
       {"playbook", playbook_excerpts(env, s, query)}});
  if (!user) return config_error(user.error());
  return ask_and_parse<Plan>(env, "planner", *system, *user, parse_plan);
}

llm::LlmResultOf<std::string> implement(const AgentEnv& env, const LoopState& s, const Plan& p,
                                        const std::string& current,
                                        const std::string& instruction) {
  auto system = system_prompt(env, s);
  if (!system) return config_error(system.error());
  auto user = env.prompts->render(
      "coder", {{"task", describe_task(*s.task, s.dialect)},
                {"budget", budget_text(env, s)},
                {"plan", p.markdown},
                {"current", current.empty() ? "(none yet: write it from scratch)"
                                            : "```" + s.dialect.fence + "\n" + current + "```"},
                {"instruction",
                 instruction.empty() ? "" : "# Instruction from the engineer\n" + instruction}});
  if (!user) return config_error(user.error());
  int n = parameter_count(s);
  return ask_and_parse<std::string>(
      env, "coder", *system, *user,
      [n, fence = s.dialect.fence](const std::string& r) { return parse_kernel(r, n, fence); });
}

llm::LlmResultOf<FixResult> fix(const AgentEnv& env, const LoopState& s, const std::string& source,
                                const std::string& failure,
                                const std::vector<DebugAttempt>& attempts) {
  auto system = system_prompt(env, s);
  if (!system) return config_error(system.error());
  auto user = env.prompts->render("debugger", {{"task", describe_task(*s.task, s.dialect)},
                                               {"budget", budget_text(env, s)},
                                               {"source", source},
                                               {"failure", failure},
                                               {"attempts", fix_history(attempts)}});
  if (!user) return config_error(user.error());
  int n = parameter_count(s);
  return ask_and_parse<FixResult>(
      env, "debugger", *system, *user,
      [n, fence = s.dialect.fence](const std::string& r) -> Result<FixResult> {
        auto parsed = parse_fix(r, n, fence);
        if (!parsed) return parsed.error();
        return FixResult{parsed->first, parsed->second};
      });
}

llm::LlmResultOf<Diagnosis> diagnose(const AgentEnv& env, const LoopState& s,
                                     const std::string& source, const eval::Evaluation& e,
                                     const std::string& tuning) {
  auto system = system_prompt(env, s);
  if (!system) return config_error(system.error());
  auto user = env.prompts->render(
      "profiler",
      {{"task", describe_task(*s.task, s.dialect)},
       {"budget", budget_text(env, s)},
       {"source", source},
       {"measurements",
        describe_evaluation(e, s.baseline_name, roofline_caveat(fewer_operations(s, source)))},
       {"standing", describe_best_figures(s, source)},
       {"history", describe_history(s)},
       {"tuning", tuning.empty() ? "(no tunables declared)\n" : tuning},
       {"hotspots", describe_hot_spots(e)},
       {"vectorization", describe_vectorization(e)},
       {"resources", describe_resources(e)}});
  if (!user) return config_error(user.error());
  return ask_and_parse<Diagnosis>(env, "profiler", *system, *user, parse_diagnosis);
}

std::string describe_failure(const eval::Evaluation& e) {
  std::string s = fmt::format("verdict: {}\n", eval::verdict_name(e.verdict));
  if (e.verdict == eval::Verdict::compile_error) {
    std::string errors = toolchain::format_errors(e.compile.diagnostics, 8);
    s += errors.empty() ? e.reason + "\n" + core::valid_utf8(e.compile.log.substr(0, 3000))
                        : "compiler errors:\n" + errors;
    return s;
  }
  s += "reason: " + e.reason + "\n";
  if (e.mismatch) s += "mismatch analysis:\n" + e.mismatch->summary();
  if (!e.kernel_output.empty())
    s += "the kernel printed:\n" + core::valid_utf8(e.kernel_output.substr(0, 2000)) +
         "\n";  // cut mid-character?
  return s;
}

}  // namespace kforge::agents
