#pragma once
// ModelClient: one provider:model that answers chat requests. make_client() builds the right
// one for a spec, reading keys and base URLs from the environment:
//   openai             OPENAI_API_KEY, OPENAI_BASE_URL (default https://api.openai.com/v1)
//   openai-compatible  KFORGE_OPENAI_COMPATIBLE_KEY, else OPENAI_API_KEY (optional); URL after '@'
//   anthropic          ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL (default https://api.anthropic.com)
//   gemini             GEMINI_API_KEY or GOOGLE_API_KEY, GEMINI_BASE_URL (default
//                      https://generativelanguage.googleapis.com)
// A base URL may or may not end in the API's version segment (/v1, /v1beta): both work.

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "kforge/llm/chat.h"
#include "kforge/llm/llm_error.h"
#include "kforge/llm/model_spec.h"
#include "kforge/llm/retry.h"

namespace kforge::llm {

class HttpTransport;

class ModelClient {
 public:
  virtual ~ModelClient() = default;
  // One call. With on_delta, the reply is streamed and on_delta sees it as it is written; the
  // reply returned is the same either way. Fills text, reasoning, finish_reason, usage,
  // latency, provider and model (pricing is LlmSession's). Safe to call from several threads.
  virtual LlmResult complete(const ChatRequest& request,
                             const StreamCallback* on_delta = nullptr) = 0;
  // "provider:model" as given.
  virtual std::string name() const = 0;
};

struct ClientOptions {
  std::chrono::milliseconds timeout{600000};  // per attempt, a stream included
  std::chrono::milliseconds connect_timeout{10000};
  RetryPolicy retry;
  const std::atomic<bool>* cancel = nullptr;  // set: calls in flight end as cancelled

  // Seams for tests; empty means the real thing.
  std::function<std::optional<std::string>(const std::string& name)> getenv;
  std::function<void(double seconds)> sleep;  // back-off waits
  std::shared_ptr<HttpTransport> transport;   // default: libcurl
};

// config when the spec needs something missing (a key, a readable transcript).
LlmResultOf<std::unique_ptr<ModelClient>> make_client(const ModelSpec& spec,
                                                      const ClientOptions& options);

}  // namespace kforge::llm
