// Result sets and their rows.
#include "kforge/store/results.h"

#include <fmt/format.h>

#include <cmath>

#include "kforge/store/process_owner.h"
#include "kforge/store/runs.h"

namespace kforge::store {
namespace {

// Every set column, in the order read_set reads them.
constexpr const char* kSetColumns =
    "s.id, s.command, s.state, s.owner, s.suite, s.task, s.target, s.size, s.dtype, s.impl, "
    "s.partner, s.settings, s.hostname, s.cpu_model, s.isa, s.threads, s.openblas_coretype, "
    "s.kforge_version, s.git_sha, s.created_at, s.updated_at";
constexpr int kSetColumnCount = 21;
// Every row column but id, set_id and created_at, in the order bind_row and read_row use them.
constexpr const char* kRowFields =
    "task, size, dtype, role, kernel, partner, status, verdict, busy, speedup, speedup_low, "
    "speedup_high, median_ms, row";
// The same, of the rows table joined with the sets (both have task, size, dtype, partner).
constexpr const char* kRowFieldsJoined =
    "r.task, r.size, r.dtype, r.role, r.kernel, r.partner, r.status, r.verdict, r.busy, "
    "r.speedup, r.speedup_low, r.speedup_high, r.median_ms, r.row";

ResultSet read_set(const Statement& st, int c = 0) {
  ResultSet s;
  s.id = st.int64(c++);
  s.command = st.text(c++);
  s.state = st.text(c++);
  s.owner = st.text(c++);
  s.suite = st.text(c++);
  s.task = st.text(c++);
  s.target = st.text(c++);
  s.size = st.text(c++);
  s.dtype = st.text(c++);
  s.impl = st.text(c++);
  s.partner = st.text(c++);
  s.settings = st.text(c++);
  s.hostname = st.text(c++);
  s.cpu_model = st.text(c++);
  s.isa = st.text(c++);
  s.threads = static_cast<int>(st.int64(c++));
  s.openblas_coretype = st.text(c++);
  s.kforge_version = st.text(c++);
  s.git_sha = st.text(c++);
  s.created_at = st.text(c++);
  s.updated_at = st.text(c++);
  return s;
}

// Reads "id, set_id, created_at, <kRowFields>" from column c on.
KeptResult read_row(const Statement& st, int c = 0) {
  KeptResult r;
  r.id = st.int64(c++);
  r.set_id = st.int64(c++);
  r.created_at = st.text(c++);
  r.task = st.text(c++);
  r.size = st.text(c++);
  r.dtype = st.text(c++);
  r.role = st.text(c++);
  r.kernel = st.text(c++);
  r.partner = st.text(c++);
  r.status = st.text(c++);
  r.verdict = st.text(c++);
  r.busy = st.int64(c++) != 0;
  r.speedup = st.optional_real(c++);
  r.speedup_low = st.optional_real(c++);
  r.speedup_high = st.optional_real(c++);
  r.median_ms = st.optional_real(c++);
  r.row = st.text(c++);
  return r;
}

template <typename T, typename Read>
Result<std::vector<T>> read_all(Statement& st, Read read) {
  std::vector<T> out;
  for (;;) {
    auto row = st.step();
    if (!row) return row.error();
    if (!*row) return out;
    out.push_back(read(st));
  }
}

}  // namespace

std::string effective_state(const ResultSet& set) {
  return set.state == "running" && !owner_alive(set.owner) ? "interrupted" : set.state;
}

SetSummary summarize(const std::vector<KeptResult>& rows) {
  SetSummary s;
  double log_sum = 0;
  int timed = 0;
  for (const auto& r : rows) {
    ++s.rows;
    if (r.verdict.empty()) continue;
    ++s.evaluated;
    if (r.verdict != "correct") continue;
    ++s.correct;
    if (r.busy) {
      ++s.busy;
      continue;
    }
    if (!r.speedup || *r.speedup <= 0) continue;
    log_sum += std::log(*r.speedup);
    ++timed;
  }
  if (timed) s.geomean_speedup = std::exp(log_sum / timed);
  return s;
}

Result<std::int64_t> insert_result_set(Database& db, const ResultSet& s) {
  auto st = db.prepare(
      "INSERT INTO result_sets (command, state, owner, suite, task, target, size, dtype, impl, "
      "partner, settings, hostname, cpu_model, isa, threads, openblas_coretype, kforge_version, "
      "git_sha, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
      "?, ?, ?)");
  if (!st) return st.error();
  const std::string now = now_iso8601();
  st->bind(1, s.command)
      .bind(2, s.state)
      .bind(3, s.owner.empty() ? current_process_owner() : s.owner)
      .bind(4, s.suite)
      .bind(5, s.task)
      .bind(6, s.target)
      .bind(7, s.size)
      .bind(8, s.dtype)
      .bind(9, s.impl)
      .bind(10, s.partner)
      .bind(11, s.settings)
      .bind(12, s.hostname)
      .bind(13, s.cpu_model)
      .bind(14, s.isa)
      .bind(15, s.threads)
      .bind(16, s.openblas_coretype)
      .bind(17, s.kforge_version)
      .bind(18, s.git_sha)
      .bind(19, s.created_at.empty() ? now : s.created_at)
      .bind(20, now);
  if (auto r = st->run(); !r) return r.error();
  return db.last_insert_rowid();
}

Status set_result_state(Database& db, std::int64_t id, const std::string& state) {
  auto st = db.prepare(
      "UPDATE result_sets SET state = ?, updated_at = ?, "
      "owner = CASE WHEN ? = 'running' THEN ? ELSE owner END WHERE id = ?");
  if (!st) return st.error();
  st->bind(1, state).bind(2, now_iso8601()).bind(3, state).bind(4, current_process_owner());
  st->bind(5, id);
  if (auto r = st->run(); !r) return r;
  if (db.changes() == 0) return Error{fmt::format("no result set {}", id)};
  return ok_status();
}

Result<std::optional<ResultSet>> find_result_set(Database& db, std::int64_t id) {
  auto st = db.prepare(fmt::format("SELECT {} FROM result_sets s WHERE s.id = ?", kSetColumns));
  if (!st) return st.error();
  st->bind(1, id);
  auto row = st->step();
  if (!row) return row.error();
  if (!*row) return std::optional<ResultSet>();
  return std::optional<ResultSet>(read_set(*st));
}

Result<std::vector<ResultSet>> list_result_sets(Database& db, const ResultFilter& f) {
  // Each filter is always bound; an empty one matches everything.
  auto st = db.prepare(fmt::format(
      "SELECT {} FROM result_sets s WHERE (?1 = '' OR s.command = ?1) "
      "AND (?2 = '' OR s.task = ?2 OR EXISTS (SELECT 1 FROM results r WHERE r.set_id = s.id AND "
      "r.task = ?2)) AND (?3 = '' OR s.target = ?3) "
      "ORDER BY s.created_at DESC, s.id DESC LIMIT ?4",
      kSetColumns));
  if (!st) return st.error();
  st->bind(1, f.command).bind(2, f.task).bind(3, f.target);
  st->bind(4, f.limit > 0 ? static_cast<std::int64_t>(f.limit) : std::int64_t{-1});
  return read_all<ResultSet>(*st, [](const Statement& s) { return read_set(s); });
}

Status put_result(Database& db, const KeptResult& r) {
  auto st = db.prepare(fmt::format(
      "INSERT INTO results (set_id, created_at, {}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
      "?, ?, ?, ?) ON CONFLICT (set_id, task, partner) DO UPDATE SET "
      "created_at = excluded.created_at, size = excluded.size, dtype = excluded.dtype, "
      "role = excluded.role, kernel = excluded.kernel, status = excluded.status, "
      "verdict = excluded.verdict, busy = excluded.busy, speedup = excluded.speedup, "
      "speedup_low = excluded.speedup_low, speedup_high = excluded.speedup_high, "
      "median_ms = excluded.median_ms, row = excluded.row",
      kRowFields));
  if (!st) return st.error();
  st->bind(1, r.set_id)
      .bind(2, r.created_at.empty() ? now_iso8601() : r.created_at)
      .bind(3, r.task)
      .bind(4, r.size)
      .bind(5, r.dtype)
      .bind(6, r.role)
      .bind(7, r.kernel)
      .bind(8, r.partner)
      .bind(9, r.status)
      .bind(10, r.verdict)
      .bind(11, r.busy);
  st->bind(12, r.speedup);
  st->bind(13, r.speedup_low);
  st->bind(14, r.speedup_high);
  st->bind(15, r.median_ms);
  st->bind(16, r.row);
  if (auto s = st->run(); !s)
    return with_context(s.error(), fmt::format("result set {}: task {}", r.set_id, r.task));
  // The set's time says when it last gained a row.
  auto touch = db.prepare("UPDATE result_sets SET updated_at = ? WHERE id = ?");
  if (!touch) return touch.error();
  touch->bind(1, now_iso8601()).bind(2, r.set_id);
  return touch->run();
}

Result<std::vector<KeptResult>> results_of_set(Database& db, std::int64_t set_id) {
  auto st = db.prepare(fmt::format(
      "SELECT id, set_id, created_at, {} FROM results WHERE set_id = ? ORDER BY task, partner",
      kRowFields));
  if (!st) return st.error();
  st->bind(1, set_id);
  return read_all<KeptResult>(*st, [](const Statement& s) { return read_row(s); });
}

Result<std::vector<HistoryPoint>> task_history(Database& db, const std::string& task,
                                               const std::string& command) {
  auto st = db.prepare(fmt::format(
      "SELECT {}, r.id, r.set_id, r.created_at, {} FROM results r JOIN result_sets s ON "
      "s.id = r.set_id WHERE r.task = ? AND (? = '' OR s.command = ?) "
      "ORDER BY s.created_at, s.id, r.partner",
      kSetColumns, kRowFieldsJoined));
  if (!st) return st.error();
  st->bind(1, task).bind(2, command).bind(3, command);
  return read_all<HistoryPoint>(*st, [](const Statement& s) {
    return HistoryPoint{read_set(s), read_row(s, kSetColumnCount)};
  });
}

}  // namespace kforge::store
