// The four LLM roles: each fills its template and names its parser.
#include <fmt/format.h>

#include "kforge/agents/agent_call.h"
#include "kforge/core/task_header.h"
#include "kforge/core/utf8.h"
#include "kforge/toolchain/cpp_compiler.h"
#include "kforge/toolchain/diagnostics.h"

namespace kforge::agents {
namespace {

int parameter_count(const LoopState& s) {
  return static_cast<int>(s.task->task().inputs.size() + s.task->task().outputs.size());
}

std::string flags(const LoopState& s) {
  auto* cpp = dynamic_cast<toolchain::CppCompiler*>(&s.task->compiler());
  if (!cpp) return "-O3 -march=native -fopenmp";
  std::string out;
  for (const auto& f : cpp->flags_for(toolchain::Role::candidate)) out += (out.empty() ? "" : " ") + f;
  return out;
}

}  // namespace

Result<std::string> system_prompt(const AgentEnv& env, const LoopState& s) {
  return env.prompts->render("system", {{"flags", flags(s)},
                                        {"signature", core::kernel_signature(s.task->task())},
                                        {"machine", describe_machine(*s.machine)}});
}

std::string playbook_excerpts(const AgentEnv& env, const std::string& query, int sections) {
  if (!env.playbook) return "(none)";
  std::string out;
  for (const auto& sec : env.playbook->search(query, sections)) out += sec.render() + "\n";
  return out.empty() ? "(no matching section)" : out;
}

llm::LlmResultOf<Plan> plan(const AgentEnv& env, const LoopState& s, const std::string& strategy) {
  auto system = system_prompt(env, s);
  if (!system) return llm::LlmError{llm::ErrorKind::config, system.error().message, {}};
  std::string query = s.task->spec().title + " " + fmt::format("{}", fmt::join(s.task->spec().tags, " ")) + " " + strategy;
  if (s.best && s.best->diagnosis) query += " " + s.best->diagnosis->bottleneck + " " + s.best->diagnosis->suggestion;
  auto user = env.prompts->render("planner", {{"task", describe_task(*s.task)},
                                              {"machine_detail", describe_machine_detail(*s.machine, s.threads)},
                                              {"standing", describe_standing(s)},
                                              {"history", describe_history(s)},
                                              {"strategy", strategy.empty() ? "Your choice: the change with the largest expected gain." : strategy},
                                              {"playbook", playbook_excerpts(env, query)},
                                              {"threads", std::to_string(s.threads)}});
  if (!user) return llm::LlmError{llm::ErrorKind::config, user.error().message, {}};
  return ask_and_parse<Plan>(env, "planner", *system, *user, parse_plan);
}

llm::LlmResultOf<std::string> implement(const AgentEnv& env, const LoopState& s, const Plan& p, const std::string& current,
                                        const std::string& instruction) {
  auto system = system_prompt(env, s);
  if (!system) return llm::LlmError{llm::ErrorKind::config, system.error().message, {}};
  auto user = env.prompts->render("coder", {{"task", describe_task(*s.task)},
                                            {"plan", p.markdown},
                                            {"current", current.empty() ? "(none yet: write it from scratch)" : "```cpp\n" + current + "```"},
                                            {"instruction", instruction.empty() ? "" : "# Instruction from the engineer\n" + instruction},
                                            {"signature", core::kernel_signature(s.task->task())}});
  if (!user) return llm::LlmError{llm::ErrorKind::config, user.error().message, {}};
  int n = parameter_count(s);
  return ask_and_parse<std::string>(env, "coder", *system, *user, [n](const std::string& r) { return parse_kernel(r, n); });
}

llm::LlmResultOf<FixResult> fix(const AgentEnv& env, const LoopState& s, const std::string& source, const std::string& failure,
                                const std::vector<DebugAttempt>& attempts) {
  auto system = system_prompt(env, s);
  if (!system) return llm::LlmError{llm::ErrorKind::config, system.error().message, {}};
  std::string history;
  for (std::size_t i = 0; i < attempts.size(); ++i)
    history += fmt::format("{}. failure: {}\n   cause found: {}\n   fix applied: {}\n", i + 1, attempts[i].failure.substr(0, 1500),
                           attempts[i].fix.cause, attempts[i].fix.fix);
  auto user = env.prompts->render("debugger", {{"task", describe_task(*s.task)},
                                               {"source", source},
                                               {"failure", failure},
                                               {"attempts", history.empty() ? "(none: this is the first)" : history}});
  if (!user) return llm::LlmError{llm::ErrorKind::config, user.error().message, {}};
  int n = parameter_count(s);
  return ask_and_parse<FixResult>(env, "debugger", *system, *user, [n](const std::string& r) -> Result<FixResult> {
    auto parsed = parse_fix(r, n);
    if (!parsed) return parsed.error();
    return FixResult{parsed->first, parsed->second};
  });
}

llm::LlmResultOf<Diagnosis> diagnose(const AgentEnv& env, const LoopState& s, const std::string& source, const eval::Evaluation& e) {
  auto system = system_prompt(env, s);
  if (!system) return llm::LlmError{llm::ErrorKind::config, system.error().message, {}};
  auto user = env.prompts->render(
      "profiler", {{"task", describe_task(*s.task)},
                   {"machine_detail", describe_machine_detail(*s.machine, s.threads)},
                   {"source", source},
                   {"measurements", describe_evaluation(e)},
                   {"hotspots", e.profile ? e.profile->summary() : "(not profiled)"},
                   {"vectorization", e.profile ? toolchain::format_vector_remarks(e.profile->vectorization) : "(not available)"}});
  if (!user) return llm::LlmError{llm::ErrorKind::config, user.error().message, {}};
  return ask_and_parse<Diagnosis>(env, "profiler", *system, *user, parse_diagnosis);
}

std::string describe_failure(const eval::Evaluation& e) {
  std::string s = fmt::format("verdict: {}\n", eval::verdict_name(e.verdict));
  if (e.verdict == eval::Verdict::compile_error) {
    std::string errors = toolchain::format_errors(e.compile.diagnostics, 8);
    s += errors.empty() ? e.reason + "\n" + e.compile.log.substr(0, 3000) : "compiler errors:\n" + errors;
    return s;
  }
  s += "reason: " + e.reason + "\n";
  if (e.mismatch) s += "mismatch analysis:\n" + e.mismatch->summary();
  if (!e.kernel_output.empty()) s += "the kernel printed:\n" + core::valid_utf8(e.kernel_output.substr(0, 2000)) + "\n";  // cut mid-character?
  return s;
}

}  // namespace kforge::agents
