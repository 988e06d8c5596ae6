// Session rows.
#include "kforge/store/sessions.h"

namespace kforge::store {
namespace {

constexpr const char* kColumns = "SELECT id, started_at, command, cwd FROM sessions ";

SessionRecord read_row(const Statement& st) {
  return {st.text(0), st.text(1), st.text(2), st.text(3)};
}

}  // namespace

Status insert_session(Database& db, const SessionRecord& s) {
  auto st = db.prepare(
      "INSERT OR IGNORE INTO sessions (id, started_at, command, cwd) VALUES (?, ?, ?, ?)");
  if (!st) return st.error();
  st->bind(1, s.id).bind(2, s.started_at).bind(3, s.command).bind(4, s.cwd);
  return st->run();
}

Result<std::optional<SessionRecord>> find_session(Database& db, const std::string& id) {
  auto st = db.prepare(std::string(kColumns) + "WHERE id = ?");
  if (!st) return st.error();
  st->bind(1, id);
  auto row = st->step();
  if (!row) return row.error();
  if (!*row) return std::optional<SessionRecord>();
  return std::optional<SessionRecord>(read_row(*st));
}

Result<std::vector<SessionRecord>> list_sessions(Database& db) {
  auto st = db.prepare(std::string(kColumns) + "ORDER BY started_at DESC, id DESC");
  if (!st) return st.error();
  std::vector<SessionRecord> out;
  for (;;) {
    auto row = st->step();
    if (!row) return row.error();
    if (!*row) break;
    out.push_back(read_row(*st));
  }
  return out;
}

}  // namespace kforge::store
