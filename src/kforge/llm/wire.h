#pragma once
// One HTTP provider's protocol: how a request is written and how a reply, a stream of events
// and an error body are read. What all of them share (retries, status codes, timeouts,
// redaction, latency) lives in http_client.cpp, so a provider file is only its wire format.

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "kforge/llm/chat.h"
#include "kforge/llm/http_transport.h"
#include "kforge/llm/llm_error.h"
#include "kforge/llm/sse.h"

namespace kforge::llm {

// Who is being called, for building requests and for messages.
struct WireInfo {
  std::string provider;  // "openai", "openai-compatible", "anthropic", "gemini"
  std::string model;
  std::string base_url;  // as configured (before the endpoint path is added)
  std::string base_env;  // the variable that can redirect it ("OPENAI_BASE_URL"); empty: none
  std::string key;       // may be empty (openai-compatible without a key)
  std::string key_env;   // the variable the key came from, or the one to set
};

// Accumulates a streamed reply. Errors come back with messages that do not name the provider
// (the client adds that).
class StreamDecoder {
 public:
  virtual ~StreamDecoder() = default;
  // One event. Text and reasoning deltas go to on_delta (which may be null).
  virtual std::optional<LlmError> on_event(const SseEvent& event,
                                           const StreamCallback* on_delta) = 0;
  // The stream ended: the reply, or truncated when its final event never came.
  virtual LlmResult finish() = 0;
};

class Wire {
 public:
  explicit Wire(WireInfo info) : info_(std::move(info)) {}
  virtual ~Wire() = default;
  const WireInfo& info() const { return info_; }

  // URL, headers (the key among them) and body; timeouts are set by the client.
  virtual HttpRequest build(const ChatRequest& request, bool stream) const = 0;
  virtual LlmResult parse(std::string_view body) const = 0;
  virtual std::unique_ptr<StreamDecoder> decoder() const = 0;
  // A refusal that means the key is bad even when the status says otherwise (Gemini answers an
  // invalid key with 400).
  virtual bool is_auth_failure(int status, std::string_view body) const {
    return status == 401 || status == 403;
  }

 private:
  WireInfo info_;
};

std::unique_ptr<Wire> make_openai_wire(WireInfo info, bool compatible);
std::unique_ptr<Wire> make_anthropic_wire(WireInfo info);
std::unique_ptr<Wire> make_gemini_wire(WireInfo info);

// --- Helpers the wire formats share ---------------------------------------------------------

// base + path, where base may already end in the version segment: join_endpoint(
// "https://api.openai.com/v1", "/v1", "/chat/completions") and join_endpoint("http://h:8000",
// "/v1", "/chat/completions") both give …/v1/chat/completions.
std::string join_endpoint(std::string_view base, std::string_view version, std::string_view path);

// The provider's explanation in an error body ({"error": {"message": …}} and the like), or the
// start of the body when it is not JSON; empty for an empty body.
std::string error_detail(std::string_view body);

// The first `n` characters of a body, on one line, for messages.
std::string excerpt(std::string_view body, std::size_t n = 160);

// Parses a JSON body; a malformed error naming what was expected otherwise.
LlmResultOf<nlohmann::json> parse_json(std::string_view body, std::string_view what);

LlmError malformed(std::string message);

// Field access that tolerates absence and nulls.
std::string json_string(const nlohmann::json& j, const char* key);
std::int64_t json_int(const nlohmann::json& j, const char* key);

}  // namespace kforge::llm
