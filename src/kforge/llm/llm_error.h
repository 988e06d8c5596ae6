#pragma once
// How a model call fails: an ErrorKind callers can act on (retry later, raise max_tokens, stop
// the run) and a message for people that says what to fix. LlmResultOf<T> is kforge::Result
// with that richer error.

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

#include "kforge/core/result.h"
#include "kforge/llm/chat.h"

namespace kforge::llm {

enum class ErrorKind {
  config,        // no model for a role, bad spec, missing key, unreadable file
  auth,          // 401/403: the key was rejected or may not use the model
  bad_request,   // 400/404/413/…: the request or the model name is wrong; retrying will not help
  rate_limited,  // 429 after every retry
  server,        // 5xx after every retry; a cmd: program that failed
  network,       // no connection, reset, DNS, after every retry
  timeout,       // no complete reply within the total timeout
  malformed,     // a reply kforge cannot read
  truncated,     // cut off: max_tokens reached (see LlmError::partial) or a stream that ended early
  cancelled,     // Ctrl-C (the cancellation flag) while the call was in flight
  budget_exhausted,  // the session's budget is spent; checked before each call
  diverged,          // replay: the request differs from the recording
};

std::string_view error_kind_name(ErrorKind kind);
std::optional<ErrorKind> parse_error_kind(std::string_view name);

struct LlmError {
  ErrorKind kind;
  std::string message;
  // For a reply cut off at max_tokens: what came back, with its usage (it was paid for).
  std::optional<ChatReply> partial;

  Error as_error() const { return Error{message}; }
};

inline LlmError with_context(LlmError e, const std::string& context) {
  e.message = context + ": " + e.message;
  return e;
}

// kforge's Result with the model layer's error; kind() because callers branch on it so often.
template <typename T>
class [[nodiscard]] LlmResultOf : public Result<T, LlmError> {
 public:
  using Result<T, LlmError>::Result;
  ErrorKind kind() const { return this->error().kind; }
};

using LlmResult = LlmResultOf<ChatReply>;
using LlmStatus = LlmResultOf<Ok>;

}  // namespace kforge::llm
