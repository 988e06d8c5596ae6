// Run and node rows.
#include "kforge/store/runs.h"

#include <fmt/format.h>

#include <ctime>

#include "kforge/store/process_owner.h"

namespace kforge::store {
namespace {

constexpr const char* kRunColumns =
    "SELECT id, mode, task, size, state, options, search_state, best_node, stop_reason, "
    "created_at, updated_at, owner FROM runs ";
// Every node column but id, run_id and created_at, in the order bind_node_fields binds them.
constexpr const char* kNodeFields =
    "parent_id, depth, iteration, strategy, plan, source, source_hash, state, verdict, reason, "
    "median_ms, baseline_ms, speedup, "
    "roofline, roofline_reason, profile, diagnosis, needs_improvement, tokens_in, tokens_out, "
    "cost_usd, expansion, strategy_id, "
    "partner, expansion_result, vs_parent_ratio, vs_parent, vs_best, decision, timing_start, "
    "timing_end, extra, finished_at";
constexpr int kNodeFieldCount = 33;

constexpr std::string_view kRunStates[] = {"running", "finished", "stopped", "interrupted",
                                           "failed"};
constexpr std::string_view kNodeStates[] = {"pending", "running", "done", "failed", "interrupted"};

template <typename E, std::size_t N>
std::optional<E> parse_enum(const std::string_view (&names)[N], std::string_view name) {
  for (std::size_t i = 0; i < N; ++i)
    if (names[i] == name) return static_cast<E>(i);
  return std::nullopt;
}

Result<RunRecord> read_run(const Statement& st) {
  RunRecord r;
  r.id = st.text(0);
  r.mode = st.text(1);
  r.task = st.text(2);
  r.size = st.text(3);
  auto state = parse_run_state(st.text(4));
  if (!state)
    return Error{fmt::format("run {}: unknown state '{}' in the store", r.id, st.text(4))};
  r.state = *state;
  r.options = st.text(5);
  r.search_state = st.text(6);
  r.best_node = st.optional_int64(7);
  r.stop_reason = st.text(8);
  r.created_at = st.text(9);
  r.updated_at = st.text(10);
  r.owner = st.text(11);
  return r;
}

// Reads the columns "id, run_id, created_at, <kNodeFields>".
Result<NodeRecord> read_node(const Statement& st) {
  NodeRecord n;
  n.id = st.int64(0);
  n.run_id = st.text(1);
  n.created_at = st.text(2);
  int c = 3;
  n.parent_id = st.optional_int64(c++);
  n.depth = static_cast<int>(st.int64(c++));
  n.iteration = static_cast<int>(st.int64(c++));
  for (std::string* v : {&n.strategy, &n.plan, &n.source, &n.source_hash}) *v = st.text(c++);
  auto state = parse_node_state(st.text(c));
  if (!state)
    return Error{fmt::format("node {} of run {}: unknown state '{}' in the store", n.id, n.run_id,
                             st.text(c))};
  n.state = *state;
  ++c;
  if (!st.is_null(c)) n.verdict = st.text(c);
  ++c;
  n.reason = st.text(c++);
  for (auto* v : {&n.median_ms, &n.baseline_ms, &n.speedup, &n.roofline})
    *v = st.optional_real(c++);
  for (std::string* v : {&n.roofline_reason, &n.profile, &n.diagnosis}) *v = st.text(c++);
  if (!st.is_null(c)) n.needs_improvement = st.int64(c) != 0;
  ++c;
  n.tokens_in = st.int64(c++);
  n.tokens_out = st.int64(c++);
  n.cost_usd = st.real(c++);
  n.expansion = st.text(c++);
  n.strategy_id = st.text(c++);
  n.partner = st.optional_int64(c++);
  n.expansion_result = st.int64(c++) != 0;
  n.vs_parent_ratio = st.optional_real(c++);
  for (std::string* v : {&n.vs_parent, &n.vs_best, &n.decision}) *v = st.text(c++);
  n.timing_start = st.optional_real(c++);
  n.timing_end = st.optional_real(c++);
  n.extra = st.text(c++);
  if (!st.is_null(c)) n.finished_at = st.text(c);
  return n;
}

// Binds the kNodeFields columns starting at `i`; returns the next index.
int bind_node_fields(Statement& st, const NodeRecord& n, int i) {
  st.bind(i++, n.parent_id);
  for (int v : {n.depth, n.iteration}) st.bind(i++, v);
  for (const std::string* v : {&n.strategy, &n.plan, &n.source, &n.source_hash}) st.bind(i++, *v);
  st.bind(i++, node_state_name(n.state));
  st.bind(i++, n.verdict);
  st.bind(i++, n.reason);
  for (const auto* v : {&n.median_ms, &n.baseline_ms, &n.speedup, &n.roofline}) st.bind(i++, *v);
  for (const std::string* v : {&n.roofline_reason, &n.profile, &n.diagnosis}) st.bind(i++, *v);
  st.bind(i++, n.needs_improvement);
  for (std::int64_t v : {n.tokens_in, n.tokens_out}) st.bind(i++, v);
  st.bind(i++, n.cost_usd);
  st.bind(i++, n.expansion);
  st.bind(i++, n.strategy_id);
  st.bind(i++, n.partner);
  st.bind(i++, n.expansion_result);
  st.bind(i++, n.vs_parent_ratio);
  for (const std::string* v : {&n.vs_parent, &n.vs_best, &n.decision}) st.bind(i++, *v);
  st.bind(i++, n.timing_start);
  st.bind(i++, n.timing_end);
  st.bind(i++, n.extra);
  st.bind(i++, n.finished_at);
  return i;
}

template <typename T, typename Read>
Result<std::vector<T>> collect(Statement& st, Read read) {
  std::vector<T> out;
  for (;;) {
    auto row = st.step();
    if (!row) return row.error();
    if (!*row) break;
    auto item = read(st);
    if (!item) return item.error();
    out.push_back(std::move(*item));
  }
  return out;
}

}  // namespace

std::string_view run_state_name(RunState s) { return kRunStates[static_cast<std::size_t>(s)]; }
std::string_view node_state_name(NodeState s) { return kNodeStates[static_cast<std::size_t>(s)]; }
std::optional<RunState> parse_run_state(std::string_view name) {
  return parse_enum<RunState>(kRunStates, name);
}
std::optional<NodeState> parse_node_state(std::string_view name) {
  return parse_enum<NodeState>(kNodeStates, name);
}

RunState effective_state(const RunRecord& run) {
  return run.state == RunState::running && !owner_alive(run.owner) ? RunState::interrupted
                                                                   : run.state;
}

std::string now_iso8601() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

Status insert_run(Database& db, const RunRecord& r) {
  auto st = db.prepare(
      "INSERT INTO runs (id, mode, task, size, state, options, search_state, best_node, "
      "stop_reason, created_at, updated_at, owner) "
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  if (!st) return st.error();
  st->bind(1, r.id)
      .bind(2, r.mode)
      .bind(3, r.task)
      .bind(4, r.size)
      .bind(5, run_state_name(r.state))
      .bind(6, r.options)
      .bind(7, r.search_state);
  st->bind(8, r.best_node);
  st->bind(9, r.stop_reason)
      .bind(10, r.created_at.empty() ? now_iso8601() : r.created_at)
      .bind(11, now_iso8601());
  st->bind(12, r.owner.empty() ? current_process_owner() : r.owner);
  return st->run();
}

Status update_run(Database& db, const RunRecord& r) {
  auto st = db.prepare(
      "UPDATE runs SET state = ?, search_state = ?, best_node = ?, stop_reason = ?, updated_at = "
      "?, "
      "owner = CASE WHEN ? = 'running' THEN ? ELSE owner END WHERE id = ?");
  if (!st) return st.error();
  st->bind(1, run_state_name(r.state)).bind(2, r.search_state);
  st->bind(3, r.best_node);
  st->bind(4, r.stop_reason)
      .bind(5, now_iso8601())
      .bind(6, run_state_name(r.state))
      .bind(7, current_process_owner())
      .bind(8, r.id);
  return st->run();
}

Result<std::optional<RunRecord>> find_run(Database& db, const std::string& id) {
  auto st = db.prepare(std::string(kRunColumns) + "WHERE id = ?");
  if (!st) return st.error();
  st->bind(1, id);
  auto row = st->step();
  if (!row) return row.error();
  if (!*row) return std::optional<RunRecord>();
  auto run = read_run(*st);
  if (!run) return run.error();
  return std::optional<RunRecord>(std::move(*run));
}

Result<std::vector<RunRecord>> list_runs(Database& db) {
  auto st = db.prepare(std::string(kRunColumns) + "ORDER BY created_at DESC, id DESC");
  if (!st) return st.error();
  return collect<RunRecord>(*st, read_run);
}

Result<std::int64_t> insert_node(Database& db, const NodeRecord& n) {
  std::string marks;
  for (int k = 0; k < kNodeFieldCount + 2; ++k) marks += k ? ", ?" : "?";
  auto st = db.prepare(
      fmt::format("INSERT INTO nodes ({}, run_id, created_at) VALUES ({})", kNodeFields, marks));
  if (!st) return st.error();
  int i = bind_node_fields(*st, n, 1);
  st->bind(i, n.run_id);
  st->bind(i + 1, n.created_at.empty() ? now_iso8601() : n.created_at);
  if (auto s = st->run(); !s) return s.error();
  return db.last_insert_rowid();
}

Status update_node(Database& db, const NodeRecord& n) {
  std::string sets = kNodeFields;
  // "a, b, c" → "a = ?, b = ?, c = ?"
  std::string assignments;
  for (std::size_t at = 0; at < sets.size();) {
    std::size_t comma = sets.find(',', at);
    std::string name = sets.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    assignments += (assignments.empty() ? "" : ", ") + name + " = ?";
    at = comma == std::string::npos ? sets.size() : comma + 2;
  }
  auto st = db.prepare(fmt::format("UPDATE nodes SET {} WHERE id = ?", assignments));
  if (!st) return st.error();
  int i = bind_node_fields(*st, n, 1);
  st->bind(i, n.id);
  if (auto s = st->run(); !s) return s;
  if (db.changes() == 0)
    return Error{fmt::format("node {} of run {} is not in the store", n.id, n.run_id)};
  return ok_status();
}

Result<std::vector<NodeRecord>> nodes_of_run(Database& db, const std::string& run_id) {
  auto st = db.prepare(fmt::format(
      "SELECT id, run_id, created_at, {} FROM nodes WHERE run_id = ? ORDER BY id", kNodeFields));
  if (!st) return st.error();
  st->bind(1, run_id);
  auto nodes = collect<NodeRecord>(*st, read_node);
  if (!nodes) return nodes;
  // Ordered by id: a node's place is its number (node_number counts the same way).
  for (std::size_t i = 0; i < nodes->size(); ++i) (*nodes)[i].number = static_cast<int>(i + 1);
  return nodes;
}

Result<std::optional<int>> node_number(Database& db, const std::string& run_id, std::int64_t id) {
  auto st = db.prepare(
      "SELECT (SELECT COUNT(*) FROM nodes WHERE run_id = ?1 AND id <= ?2), "
      "EXISTS (SELECT 1 FROM nodes WHERE run_id = ?1 AND id = ?2)");
  if (!st) return st.error();
  st->bind(1, run_id).bind(2, id);
  auto row = st->step();
  if (!row) return row.error();
  if (!*row || st->int64(1) == 0) return std::optional<int>();
  return std::optional<int>(static_cast<int>(st->int64(0)));
}

Result<std::optional<std::int64_t>> node_id(Database& db, const std::string& run_id, int number) {
  if (number < 1) return std::optional<std::int64_t>();
  auto st = db.prepare("SELECT id FROM nodes WHERE run_id = ? ORDER BY id LIMIT 1 OFFSET ?");
  if (!st) return st.error();
  st->bind(1, run_id).bind(2, static_cast<std::int64_t>(number - 1));
  auto row = st->step();
  if (!row) return row.error();
  if (!*row) return std::optional<std::int64_t>();
  return std::optional<std::int64_t>(st->int64(0));
}

NodeNumbers::NodeNumbers(const std::vector<NodeRecord>& nodes) {
  for (const auto& n : nodes) by_id_[n.id] = n.number;
}

std::optional<int> NodeNumbers::of(std::optional<std::int64_t> id) const {
  if (!id) return std::nullopt;
  auto it = by_id_.find(*id);
  return it == by_id_.end() ? std::nullopt : std::optional<int>(it->second);
}

}  // namespace kforge::store
