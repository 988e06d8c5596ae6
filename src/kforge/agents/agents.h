#pragma once
// The sub-agent pool, the face of the agents layer. The same functions serve hitl, auto and search:
//   plan      (planner, LLM)    → a markdown plan with the required sections
//   implement (coder, LLM)      → one complete kernel source
//   fix       (debugger, LLM)   → a fixed source and a FIX_SUMMARY, seeing every earlier attempt
//   diagnose  (profiler, LLM)   → bottleneck, diagnosis and the NEEDS_IMPROVEMENT decision
//   test      (tester, no LLM)  → the harness's verdict, written up for the debugger
//   tune      (tuner, no LLM)   → see tuner.h
// Each LLM role renders its prompt template, calls the model through the session (which prices
// and records the call), parses the reply, and on a malformed reply asks once more, saying what
// was wrong.

#include <string>
#include <vector>

#include "kforge/agents/knowledge_index.h"
#include "kforge/agents/loop_state.h"
#include "kforge/agents/prompt_template.h"
#include "kforge/agents/reply_parsers.h"
#include "kforge/llm/llm.h"

namespace kforge::agents {

struct AgentEnv {
  llm::LlmSession* llm = nullptr;
  const PromptLibrary* prompts = nullptr;
  const KnowledgeIndex* playbook = nullptr;     // optional
  const llm::StreamCallback* stream = nullptr;  // optional: show replies as they are written
  double temperature = 0.2;
  int max_tokens = 16384;
};

// One earlier debugging round, for the debugger's memory.
struct DebugAttempt {
  std::string failure;  // what went wrong (compiler errors, verdict and mismatch)
  FixSummary fix;       // what the debugger changed in response
};

struct FixResult {
  std::string source;
  FixSummary summary;
};

llm::LlmResultOf<Plan> plan(const AgentEnv& env, const LoopState& state,
                            const std::string& strategy);
llm::LlmResultOf<std::string> implement(const AgentEnv& env, const LoopState& state,
                                        const Plan& plan, const std::string& current_source,
                                        const std::string& instruction = "");
llm::LlmResultOf<FixResult> fix(const AgentEnv& env, const LoopState& state,
                                const std::string& source, const std::string& failure,
                                const std::vector<DebugAttempt>& attempts);
// `tuning`: the tuner's table for this kernel ("" when it declared no tunables).
llm::LlmResultOf<Diagnosis> diagnose(const AgentEnv& env, const LoopState& state,
                                     const std::string& source, const eval::Evaluation& evaluation,
                                     const std::string& tuning = "");

// The tester: a failed evaluation as the debugger should read it (compiler errors with their
// source lines, the verdict and its reason, the mismatch analysis, what the kernel printed).
std::string describe_failure(const eval::Evaluation& e);

// The system prompt every role shares: the rules, and the machine (core, clock, ISA, caches,
// peaks, compiler and flags).
Result<std::string> system_prompt(const AgentEnv& env, const LoopState& state);
// The playbook sections that fit the loop's task and machine (playbook_fit), ranked by a query
// (task title, strategy, diagnosis), rendered in full; "(none)" without a playbook. In full every
// time: each request stands alone (no conversation), so a section named as "sent earlier" would be
// advice the model can no longer read; what repeats is what the providers' prompt caches serve.
std::string playbook_excerpts(const AgentEnv& env, const LoopState& s, const std::string& query,
                              int sections = 3);

}  // namespace kforge::agents
