#pragma once
// The llm_calls table: one row per model call (also failed and cached ones), and the usage
// totals `kforge llm usage` reports. The text of requests and replies lives in the transcript.

#include <cstdint>
#include <string>
#include <vector>

#include "kforge/core/result.h"
#include "kforge/store/database.h"

namespace kforge::store {

struct LlmCallRecord {
  std::string session_id;
  std::int64_t call = 0;  // 1, 2, … within the session
  std::string time;       // ISO 8601, UTC
  std::string role, provider, model;
  std::int64_t input_tokens = 0, output_tokens = 0, cached_tokens = 0, reasoning_tokens = 0;
  double latency_ms = 0, cost_usd = 0;
  bool priced = true, cached = false;
  bool tokens_estimated = false;  // the provider reported no usage; kforge estimated the tokens
  std::string finish_reason;
  std::string error_kind, error;  // empty when the call succeeded
  std::string request_key;
};

Status insert_llm_call(Database& db, const LlmCallRecord& call);
// The highest call number recorded for a session (0 when none): a resumed session goes on from it.
Result<std::int64_t> last_llm_call(Database& db, const std::string& session_id);

// Every call of a session in order (for a page that lists them with tokens and cost).
Result<std::vector<LlmCallRecord>> llm_calls_of(Database& db, const std::string& session_id);

// Totals for one (session, role, provider, model). Tokens count only calls that reached a
// model: a reply from the response cache adds a call and a cached call, no tokens, no cost.
struct UsageRow {
  std::string session_id, started_at, role, provider, model;
  std::int64_t calls = 0, cached_calls = 0, failed_calls = 0;
  std::int64_t input_tokens = 0, output_tokens = 0, cached_tokens = 0, reasoning_tokens = 0;
  double cost_usd = 0, latency_ms = 0;  // latency: the sum over calls
  bool unpriced = false;                // some call had no known price
  bool estimated = false;               // some call's tokens are kforge's estimate
};

// Grouped by session, role, provider and model, sessions newest first. An empty session_id
// means all sessions.
Result<std::vector<UsageRow>> llm_usage(Database& db, const std::string& session_id = {});

}  // namespace kforge::store
