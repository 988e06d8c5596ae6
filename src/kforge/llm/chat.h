#pragma once
// What a model call is made of: the messages sent, the reply with its usage, and the deltas a
// streaming caller sees while the reply is written. Plain values, the same for every provider.

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace kforge::llm {

struct ChatMessage {
  std::string role;  // "system" | "user" | "assistant"
  std::string content;
};

struct ChatRequest {
  std::string agent_role;  // "planner", "coder", …: chooses the model and labels the record
  std::vector<ChatMessage> messages;
  double temperature = 0.2;
  int max_tokens = 8192;  // the reply's limit; reasoning models spend part of it thinking
};

// Tokens as the provider reported them, normalized: input_tokens includes cached_tokens (prompt
// tokens the provider served from its prompt cache, billed lower); output_tokens includes
// reasoning_tokens (thinking, billed as output). `estimated`: the provider reported nothing and
// kforge counted them (token_estimate.h).
struct Usage {
  std::int64_t input_tokens = 0, output_tokens = 0, cached_tokens = 0, reasoning_tokens = 0;
  bool estimated = false;
};

struct ChatReply {
  std::string text;           // the answer
  std::string reasoning;      // thinking the provider returned (empty when it returns none)
  std::string finish_reason;  // "stop", "length", or the provider's own word in lower case
  std::string provider, model;
  Usage usage;
  double latency_ms = 0;  // wall time of the call, retries and back-off included
  double cost_usd = 0;
  bool cached = false;  // served from kforge's response cache: cost 0, no tokens spent
  bool priced = true;   // false: no price known for this model, so cost_usd is 0
};

// A piece of the reply as it streams in: one of the two is non-empty.
struct StreamDelta {
  std::string_view text;
  std::string_view reasoning;
};
using StreamCallback = std::function<void(const StreamDelta&)>;

}  // namespace kforge::llm
