#pragma once
// One role's exchange with the model: send, parse, and on a malformed reply send the reason back
// once ("Your reply could not be used: …") before giving up with ErrorKind::malformed.

#include <functional>
#include <string>

#include "kforge/agents/agents.h"

namespace kforge::agents {

template <typename T>
llm::LlmResultOf<T> ask_and_parse(const AgentEnv& env, const std::string& role,
                                  const std::string& system, const std::string& user,
                                  const std::function<Result<T>(const std::string&)>& parse) {
  llm::ChatRequest request{
      role, {{"system", system}, {"user", user}}, env.temperature, env.max_tokens};
  for (int attempt = 0;; ++attempt) {
    auto reply = env.llm->complete(request, env.stream);
    if (!reply) return reply.error();
    auto parsed = parse(reply->text);
    if (parsed) return std::move(*parsed);
    if (attempt == 1)
      return llm::LlmError{llm::ErrorKind::malformed,
                           role + ": the reply was malformed twice: " + parsed.error().message,
                           {}};
    request.messages.push_back({"assistant", reply->text});
    request.messages.push_back({"user", "Your reply could not be used: " + parsed.error().message});
  }
}

}  // namespace kforge::agents
