// Wiring shared by auto, search and hitl.
#include "kforge/cli/agent_stack.h"

#include <fmt/format.h>

#include <iostream>

#include "kforge/cli/common.h"
#include "kforge/core/paths.h"

namespace kforge::cli {

std::unique_ptr<AgentStack> make_agent_stack(const AgentStackOptions& o) {
  auto config = llm::load_config(o.config);
  if (!config) throw UsageError(config.error().message);
  llm::SessionOptions so;
  so.id = o.session_id;
  so.command = o.command;
  so.model = o.model;
  so.budget = {o.max_usd, o.max_tokens};
  so.cancel = llm::install_interrupt_handler();
  // Every role's model and key are checked before anything is recorded, built or measured: a
  // missing key is a usage error now, not a failed planner after the baseline was timed, and a
  // failed start leaves no session behind.
  {
    llm::SessionOptions dry = so;
    dry.record = false;
    auto probe = llm::LlmSession::open(*config, dry);
    if (!probe) throw UsageError(probe.error().message);
    for (const char* role : {"planner", "coder", "debugger", "profiler"})
      if (auto ready = (*probe)->check_role(role); !ready) throw UsageError(ready.error().message);
  }
  auto session = llm::LlmSession::open(*config, so);
  if (!session) throw UsageError(session.error().message);

  const target::Target& target = *o.target;
  auto stack = std::make_unique<AgentStack>(
      AgentStack{std::move(*session), target_prompts(target, o.prompts), std::nullopt, {}, {}});
  auto playbook = target_playbook(target);
  if (playbook)
    stack->playbook.emplace(std::move(*playbook));
  else
    fmt::print(stderr, "kforge: warning: no playbook: {}\n", playbook.error().message);
  stack->echo = [](const llm::StreamDelta& d) {
    std::cerr << d.text;
    std::cerr.flush();
  };
  stack->env = agents::AgentEnv{stack->session.get(), &stack->prompts,
                                stack->playbook ? &*stack->playbook : nullptr,
                                o.stream ? &stack->echo : nullptr};
  return stack;
}

agents::PromptLibrary target_prompts(const target::Target& target, const std::string& user_dir) {
  return agents::PromptLibrary(user_dir, target.agent_material().prompt_dir);
}

Result<agents::KnowledgeIndex> target_playbook(const target::Target& target) {
  return agents::KnowledgeIndex::open(target.agent_material().playbook_dir);
}

}  // namespace kforge::cli
