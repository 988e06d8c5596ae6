#pragma once
// A session's transcript: .kforge/sessions/<id>/transcript.jsonl, one JSON object per call, in
// the order calls finished. Each line holds the request (messages and parameters), the reply
// (text, reasoning, finish reason), usage, latency, cost and any error:
//   {"time": "2025-06-01T12:00:00.123Z", "session": "…", "call": 3, "role": "coder",
//    "provider": "openai", "model": "gpt-4o", "messages": [{"role": "user", "content": "…"}],
//    "params": {"temperature": 0.2, "max_tokens": 8192}, "text": "…", "reasoning": "",
//    "finish_reason": "stop", "usage": {"input_tokens": 812, "output_tokens": 530,
//    "cached_tokens": 0, "reasoning_tokens": 0}, "latency_ms": 5321.4, "cost_usd": 0.00733,
//    "priced": true, "cached": false, "error": null}
// "error" is {"kind": "timeout", "message": "…"} when the call failed. replay:FILE reads it back.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kforge/core/result.h"
#include "kforge/llm/chat.h"
#include "kforge/llm/llm_error.h"

namespace kforge::llm {

struct TranscriptEntry {
  std::string time;  // ISO 8601, UTC
  std::string session;
  std::int64_t call = 0;
  ChatRequest request;  // agent_role is the "role"
  ChatReply reply;      // provider and model name the model that answered
  std::optional<LlmError> error;
};

// A reply's text, reasoning, finish reason, provider, model and usage: the fields a transcript
// line and a cached reply both keep, in one JSON shape.
nlohmann::json reply_to_json(const ChatReply& reply);
// Reads those fields back into `reply`; a missing field keeps its default. Throws
// nlohmann::json::exception on a field of the wrong type.
void reply_from_json(const nlohmann::json& j, ChatReply& reply);

nlohmann::json to_json(const TranscriptEntry& entry);
// `where` prefixes errors ("run.jsonl:4").
Result<TranscriptEntry> entry_from_json(const nlohmann::json& j, const std::string& where);

// Appends whole lines: each entry is one write() to a file opened with O_APPEND, so a line is
// never interleaved with another or left half-written by a cancelled call.
class TranscriptWriter {
 public:
  static Result<std::unique_ptr<TranscriptWriter>> open(const std::filesystem::path& path);
  ~TranscriptWriter();
  Status append(const TranscriptEntry& entry);
  const std::filesystem::path& path() const { return path_; }

 private:
  TranscriptWriter(int fd, std::filesystem::path path) : fd_(fd), path_(std::move(path)) {}
  std::mutex mutex_;
  int fd_;
  std::filesystem::path path_;
};

Result<std::vector<TranscriptEntry>> read_transcript(const std::filesystem::path& path);

// Now, as "2025-06-01T12:00:00.123Z".
std::string utc_timestamp();

}  // namespace kforge::llm
