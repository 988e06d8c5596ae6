// Recording model calls and summing them up.
#include "kforge/store/llm_calls.h"

namespace kforge::store {

Status insert_llm_call(Database& db, const LlmCallRecord& c) {
  auto st = db.prepare(
      "INSERT INTO llm_calls (session_id, call, time, role, provider, model, input_tokens, "
      "output_tokens, cached_tokens, "
      "reasoning_tokens, latency_ms, cost_usd, priced, cached, finish_reason, error_kind, error, "
      "request_key, tokens_estimated) "
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  if (!st) return st.error();
  st->bind(1, c.session_id)
      .bind(2, c.call)
      .bind(3, c.time)
      .bind(4, c.role)
      .bind(5, c.provider)
      .bind(6, c.model);
  st->bind(7, c.input_tokens)
      .bind(8, c.output_tokens)
      .bind(9, c.cached_tokens)
      .bind(10, c.reasoning_tokens);
  st->bind(11, c.latency_ms)
      .bind(12, c.cost_usd)
      .bind(13, c.priced)
      .bind(14, c.cached)
      .bind(15, c.finish_reason);
  if (c.error_kind.empty())
    st->bind_null(16).bind_null(17);
  else
    st->bind(16, c.error_kind).bind(17, c.error);
  st->bind(18, c.request_key).bind(19, c.tokens_estimated);
  return st->run();
}

Result<std::int64_t> last_llm_call(Database& db, const std::string& session_id) {
  auto st = db.prepare("SELECT COALESCE(MAX(call), 0) FROM llm_calls WHERE session_id = ?");
  if (!st) return st.error();
  st->bind(1, session_id);
  auto row = st->step();
  if (!row) return row.error();
  return *row ? st->int64(0) : std::int64_t{0};
}

Result<std::vector<LlmCallRecord>> llm_calls_of(Database& db, const std::string& session_id) {
  auto st = db.prepare(
      "SELECT call, time, role, provider, model, input_tokens, output_tokens, cached_tokens, "
      "reasoning_tokens, latency_ms, cost_usd, priced, cached, COALESCE(finish_reason, ''), "
      "COALESCE(error_kind, ''), COALESCE(error, ''), tokens_estimated FROM llm_calls "
      "WHERE session_id = ? ORDER BY call");
  if (!st) return st.error();
  st->bind(1, session_id);
  std::vector<LlmCallRecord> calls;
  for (;;) {
    auto row = st->step();
    if (!row) return row.error();
    if (!*row) break;
    LlmCallRecord c;
    c.session_id = session_id;
    c.call = st->int64(0);
    c.time = st->text(1);
    c.role = st->text(2);
    c.provider = st->text(3);
    c.model = st->text(4);
    c.input_tokens = st->int64(5);
    c.output_tokens = st->int64(6);
    c.cached_tokens = st->int64(7);
    c.reasoning_tokens = st->int64(8);
    c.latency_ms = st->real(9);
    c.cost_usd = st->real(10);
    c.priced = st->int64(11) != 0;
    c.cached = st->int64(12) != 0;
    c.finish_reason = st->text(13);
    c.error_kind = st->text(14);
    c.error = st->text(15);
    c.tokens_estimated = st->int64(16) != 0;
    calls.push_back(std::move(c));
  }
  return calls;
}

Result<std::vector<UsageRow>> llm_usage(Database& db, const std::string& session_id) {
  auto st = db.prepare(R"sql(
SELECT c.session_id, COALESCE(s.started_at, ''), c.role, c.provider, c.model,
       COUNT(*), SUM(c.cached), SUM(c.error_kind IS NOT NULL),
       SUM(CASE WHEN c.cached THEN 0 ELSE c.input_tokens END),
       SUM(CASE WHEN c.cached THEN 0 ELSE c.output_tokens END),
       SUM(CASE WHEN c.cached THEN 0 ELSE c.cached_tokens END),
       SUM(CASE WHEN c.cached THEN 0 ELSE c.reasoning_tokens END),
       SUM(c.cost_usd), SUM(c.latency_ms), MIN(c.priced),
       MAX(CASE WHEN c.cached THEN 0 ELSE c.tokens_estimated END)
FROM llm_calls c LEFT JOIN sessions s ON s.id = c.session_id
WHERE ?1 = '' OR c.session_id = ?1
GROUP BY c.session_id, c.role, c.provider, c.model
ORDER BY s.started_at DESC, c.session_id DESC, c.role, c.provider, c.model)sql");
  if (!st) return st.error();
  st->bind(1, session_id);
  std::vector<UsageRow> rows;
  for (;;) {
    auto row = st->step();
    if (!row) return row.error();
    if (!*row) break;
    UsageRow u;
    u.session_id = st->text(0);
    u.started_at = st->text(1);
    u.role = st->text(2);
    u.provider = st->text(3);
    u.model = st->text(4);
    u.calls = st->int64(5);
    u.cached_calls = st->int64(6);
    u.failed_calls = st->int64(7);
    u.input_tokens = st->int64(8);
    u.output_tokens = st->int64(9);
    u.cached_tokens = st->int64(10);
    u.reasoning_tokens = st->int64(11);
    u.cost_usd = st->real(12);
    u.latency_ms = st->real(13);
    u.unpriced = st->int64(14) == 0;
    u.estimated = st->int64(15) != 0;
    rows.push_back(std::move(u));
  }
  return rows;
}

}  // namespace kforge::store
