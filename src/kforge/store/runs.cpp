// Run and node rows.
#include "kforge/store/runs.h"

#include <ctime>

#include "kforge/store/process_owner.h"

namespace kforge::store {
namespace {

constexpr const char* kRunColumns =
    "SELECT id, mode, task, size, state, options, search_state, best_node, stop_reason, created_at, updated_at, owner FROM runs ";
constexpr const char* kNodeColumns =
    "SELECT id, run_id, parent_id, depth, iteration, strategy, plan, source, source_hash, state, verdict, reason, median_ms, baseline_ms, "
    "speedup, roofline, profile, diagnosis, needs_improvement, tokens_in, tokens_out, cost_usd, extra, created_at, finished_at FROM nodes ";

template <typename T>
void bind_optional(Statement& st, int i, const std::optional<T>& v) {
  if (v) st.bind(i, *v);
  else st.bind_null(i);
}

RunRecord read_run(const Statement& st) {
  RunRecord r;
  r.id = st.text(0);
  r.mode = st.text(1);
  r.task = st.text(2);
  r.size = st.text(3);
  r.state = st.text(4);
  r.options = st.text(5);
  r.search_state = st.text(6);
  if (!st.is_null(7)) r.best_node = st.int64(7);
  r.stop_reason = st.text(8);
  r.created_at = st.text(9);
  r.updated_at = st.text(10);
  r.owner = st.text(11);
  return r;
}

NodeRecord read_node(const Statement& st) {
  NodeRecord n;
  n.id = st.int64(0);
  n.run_id = st.text(1);
  if (!st.is_null(2)) n.parent_id = st.int64(2);
  n.depth = static_cast<int>(st.int64(3));
  n.iteration = static_cast<int>(st.int64(4));
  n.strategy = st.text(5);
  n.plan = st.text(6);
  n.source = st.text(7);
  n.source_hash = st.text(8);
  n.state = st.text(9);
  if (!st.is_null(10)) n.verdict = st.text(10);
  n.reason = st.text(11);
  auto real = [&](int c) { return st.is_null(c) ? std::optional<double>() : std::optional<double>(st.real(c)); };
  n.median_ms = real(12);
  n.baseline_ms = real(13);
  n.speedup = real(14);
  n.roofline = real(15);
  n.profile = st.text(16);
  n.diagnosis = st.text(17);
  if (!st.is_null(18)) n.needs_improvement = st.int64(18) != 0;
  n.tokens_in = st.int64(19);
  n.tokens_out = st.int64(20);
  n.cost_usd = st.real(21);
  n.extra = st.text(22);
  n.created_at = st.text(23);
  if (!st.is_null(24)) n.finished_at = st.text(24);
  return n;
}

// Binds the mutable node columns starting at `i`; returns the next index.
int bind_node_fields(Statement& st, const NodeRecord& n, int i) {
  bind_optional(st, i++, n.parent_id);
  for (int v : {n.depth, n.iteration}) st.bind(i++, v);
  for (const std::string* v : {&n.strategy, &n.plan, &n.source, &n.source_hash, &n.state}) st.bind(i++, *v);
  bind_optional(st, i++, n.verdict);
  st.bind(i++, n.reason);
  for (const auto* v : {&n.median_ms, &n.baseline_ms, &n.speedup, &n.roofline}) bind_optional(st, i++, *v);
  for (const std::string* v : {&n.profile, &n.diagnosis}) st.bind(i++, *v);
  bind_optional(st, i++, n.needs_improvement);
  for (std::int64_t v : {n.tokens_in, n.tokens_out}) st.bind(i++, v);
  st.bind(i++, n.cost_usd);
  st.bind(i++, n.extra);
  bind_optional(st, i++, n.finished_at);
  return i;
}

template <typename T, typename Read>
Result<std::vector<T>> collect(Statement& st, Read read) {
  std::vector<T> out;
  for (;;) {
    auto row = st.step();
    if (!row) return row.error();
    if (!*row) break;
    out.push_back(read(st));
  }
  return out;
}

}  // namespace

std::string effective_state(const RunRecord& run) {
  return run.state == "running" && !owner_alive(run.owner) ? "interrupted" : run.state;
}

std::string now_iso8601() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

Status insert_run(Database& db, const RunRecord& r) {
  auto st = db.prepare(
      "INSERT INTO runs (id, mode, task, size, state, options, search_state, best_node, stop_reason, created_at, updated_at, owner) "
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  if (!st) return st.error();
  st->bind(1, r.id).bind(2, r.mode).bind(3, r.task).bind(4, r.size).bind(5, r.state).bind(6, r.options).bind(7, r.search_state);
  bind_optional(*st, 8, r.best_node);
  st->bind(9, r.stop_reason).bind(10, r.created_at.empty() ? now_iso8601() : r.created_at).bind(11, now_iso8601());
  st->bind(12, r.owner.empty() ? current_process_owner() : r.owner);
  return st->run();
}

Status update_run(Database& db, const RunRecord& r) {
  auto st = db.prepare(
      "UPDATE runs SET state = ?, search_state = ?, best_node = ?, stop_reason = ?, updated_at = ?, "
      "owner = CASE WHEN ? = 'running' THEN ? ELSE owner END WHERE id = ?");
  if (!st) return st.error();
  st->bind(1, r.state).bind(2, r.search_state);
  bind_optional(*st, 3, r.best_node);
  st->bind(4, r.stop_reason).bind(5, now_iso8601()).bind(6, r.state).bind(7, current_process_owner()).bind(8, r.id);
  return st->run();
}

Result<std::optional<RunRecord>> find_run(Database& db, const std::string& id) {
  auto st = db.prepare(std::string(kRunColumns) + "WHERE id = ?");
  if (!st) return st.error();
  st->bind(1, id);
  auto row = st->step();
  if (!row) return row.error();
  if (!*row) return std::optional<RunRecord>();
  return std::optional<RunRecord>(read_run(*st));
}

Result<std::vector<RunRecord>> list_runs(Database& db) {
  auto st = db.prepare(std::string(kRunColumns) + "ORDER BY created_at DESC, id DESC");
  if (!st) return st.error();
  return collect<RunRecord>(*st, read_run);
}

Result<std::int64_t> insert_node(Database& db, const NodeRecord& n) {
  auto st = db.prepare(
      "INSERT INTO nodes (parent_id, depth, iteration, strategy, plan, source, source_hash, state, verdict, reason, median_ms, baseline_ms, "
      "speedup, roofline, profile, diagnosis, needs_improvement, tokens_in, tokens_out, cost_usd, extra, finished_at, run_id, created_at) "
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  if (!st) return st.error();
  int i = bind_node_fields(*st, n, 1);
  st->bind(i, n.run_id);
  st->bind(i + 1, n.created_at.empty() ? now_iso8601() : n.created_at);
  if (auto s = st->run(); !s) return s.error();
  return db.last_insert_rowid();
}

Status update_node(Database& db, const NodeRecord& n) {
  auto st = db.prepare(
      "UPDATE nodes SET parent_id = ?, depth = ?, iteration = ?, strategy = ?, plan = ?, source = ?, source_hash = ?, state = ?, verdict = ?, "
      "reason = ?, median_ms = ?, baseline_ms = ?, speedup = ?, roofline = ?, profile = ?, diagnosis = ?, needs_improvement = ?, "
      "tokens_in = ?, tokens_out = ?, cost_usd = ?, extra = ?, finished_at = ? WHERE id = ?");
  if (!st) return st.error();
  int i = bind_node_fields(*st, n, 1);
  st->bind(i, n.id);
  return st->run();
}

Result<std::vector<NodeRecord>> nodes_of_run(Database& db, const std::string& run_id) {
  auto st = db.prepare(std::string(kNodeColumns) + "WHERE run_id = ? ORDER BY id");
  if (!st) return st.error();
  st->bind(1, run_id);
  return collect<NodeRecord>(*st, read_node);
}

}  // namespace kforge::store
