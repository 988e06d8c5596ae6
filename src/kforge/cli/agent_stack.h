#pragma once
// What the model-driven commands (auto, search, hitl) set up the same way: kforge.toml, the model
// session (budget, Ctrl-C, recording), the prompt templates, the playbook and the agents' env.

#include <memory>
#include <optional>
#include <string>

#include "kforge/agents/agents.h"
#include "kforge/agents/knowledge_index.h"
#include "kforge/llm/llm.h"
#include "kforge/targets/target.h"

namespace kforge::cli {

struct AgentStackOptions {
  std::string command;     // for the session row
  std::string model;       // --model
  std::string config;      // --config
  std::string prompts;     // --prompts
  std::string session_id;  // resume an existing session ("" = a new one)
  double max_usd = 0;
  std::int64_t max_tokens = 0;
  bool stream = false;  // echo replies to stderr as they are written
  // Whose prompts, playbook and strategies the agents get.
  const target::Target* target = &target::default_target();
};

struct AgentStack {
  std::unique_ptr<llm::LlmSession> session;
  agents::PromptLibrary prompts;
  std::optional<agents::KnowledgeIndex> playbook;
  llm::StreamCallback echo;
  agents::AgentEnv env;
};

// Throws UsageError with the model layer's message when a role has no model or the config is bad.
std::unique_ptr<AgentStack> make_agent_stack(const AgentStackOptions& options);

// A target's agent material: the prompt templates (the user's --prompts folder first, then the
// target's own, then prompts/) and its playbook.
agents::PromptLibrary target_prompts(const target::Target& target, const std::string& user_dir);
Result<agents::KnowledgeIndex> target_playbook(const target::Target& target);

}  // namespace kforge::cli
