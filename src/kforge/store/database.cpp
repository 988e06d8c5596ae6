// SQLite connection and statements.
#include "kforge/store/database.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <chrono>
#include <thread>

#include "kforge/core/fs.h"

namespace kforge::store {
namespace {

// The first line of a statement, shortened, for error messages.
std::string sql_excerpt(std::string_view sql) {
  std::string s(sql.substr(0, sql.find('\n')));
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.erase(s.begin());
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  return s;
}

// Switching a new database to WAL takes an exclusive lock and SQLite answers SQLITE_BUSY at once,
// without calling the busy handler, while another connection is switching it too (seen when
// several processes open a fresh store together). So the switch is retried here, within the same
// bound the busy handler has for everything else. A disk I/O error is retried a few times too:
// one was seen once, a search opening a fresh store while `kforge serve` opened and closed it for
// every request (a stress test of concurrent opens did not reproduce it); a real one persists.
int set_wal_mode(sqlite3* db, std::chrono::milliseconds bound) {
  const auto deadline = std::chrono::steady_clock::now() + bound;
  for (int io_errors = 0;;) {
    int rc = sqlite3_exec(db, "PRAGMA journal_mode = WAL", nullptr, nullptr, nullptr);
    const bool retry =
        rc == SQLITE_BUSY || rc == SQLITE_LOCKED || (rc == SQLITE_IOERR && ++io_errors < 4);
    if (!retry || std::chrono::steady_clock::now() >= deadline) return rc;
    std::this_thread::sleep_for(std::chrono::milliseconds(rc == SQLITE_IOERR ? 20 : 5));
  }
}

}  // namespace

// --- Statement -----------------------------------------------------------------------------

Statement::Statement(Statement&& other) noexcept
    : stmt_(other.stmt_), db_(other.db_), bind_error_(std::move(other.bind_error_)) {
  other.stmt_ = nullptr;
}

Statement& Statement::operator=(Statement&& other) noexcept {
  if (this != &other) {
    sqlite3_finalize(stmt_);
    stmt_ = other.stmt_;
    db_ = other.db_;
    bind_error_ = std::move(other.bind_error_);
    other.stmt_ = nullptr;
  }
  return *this;
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

void Statement::note_bind(int rc, int index) {
  if (rc != SQLITE_OK && bind_error_.empty())
    bind_error_ = fmt::format("bind {}: {}", index, sqlite3_errstr(rc));
}

Statement& Statement::bind(int index, std::string_view text) {
  note_bind(
      sqlite3_bind_text(stmt_, index, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT),
      index);
  return *this;
}

Statement& Statement::bind(int index, std::int64_t value) {
  note_bind(sqlite3_bind_int64(stmt_, index, value), index);
  return *this;
}

Statement& Statement::bind(int index, double value) {
  note_bind(sqlite3_bind_double(stmt_, index, value), index);
  return *this;
}

Statement& Statement::bind_null(int index) {
  note_bind(sqlite3_bind_null(stmt_, index), index);
  return *this;
}

Result<bool> Statement::step() {
  std::string sql = sql_excerpt(sqlite3_sql(stmt_));
  if (!bind_error_.empty())
    return with_context(Error{bind_error_}, fmt::format("{}: '{}'", db_->path().string(), sql));
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  Error e = db_->error(fmt::format("'{}'", sql));
  sqlite3_reset(stmt_);
  return e;
}

Status Statement::run() {
  for (;;) {
    auto r = step();
    if (!r) return r.error();
    if (!*r) break;
  }
  sqlite3_reset(stmt_);
  return ok_status();
}

void Statement::reset() {
  sqlite3_reset(stmt_);
  bind_error_.clear();
}

std::int64_t Statement::int64(int column) const { return sqlite3_column_int64(stmt_, column); }
double Statement::real(int column) const { return sqlite3_column_double(stmt_, column); }
bool Statement::is_null(int column) const {
  return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

std::optional<double> Statement::optional_real(int column) const {
  return is_null(column) ? std::nullopt : std::optional<double>(real(column));
}

std::optional<std::int64_t> Statement::optional_int64(int column) const {
  return is_null(column) ? std::nullopt : std::optional<std::int64_t>(int64(column));
}

std::string Statement::text(int column) const {
  const auto* p = sqlite3_column_text(stmt_, column);
  if (!p) return {};
  return std::string(reinterpret_cast<const char*>(p),
                     static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column)));
}

// --- Database ------------------------------------------------------------------------------

Result<std::unique_ptr<Database>> Database::open(const std::filesystem::path& path,
                                                 std::chrono::milliseconds busy_timeout) {
  if (path.has_parent_path())
    if (auto made = core::ensure_dir(path.parent_path()); !made) return made.error();
  sqlite3* raw = nullptr;
  int rc =
      sqlite3_open_v2(path.c_str(), &raw,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    std::string message = raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc);
    sqlite3_close(raw);
    return Error{fmt::format("{}: cannot open the database: {}", path.string(), message)};
  }
  std::unique_ptr<Database> db(new Database(raw, path));
  sqlite3_busy_timeout(raw, static_cast<int>(busy_timeout.count()));
  if (int wal = set_wal_mode(raw, busy_timeout); wal != SQLITE_OK)
    return Error{fmt::format("{}: cannot switch the database to WAL: {} (SQLite code {})",
                             path.string(), sqlite3_errmsg(raw), sqlite3_extended_errcode(raw))};
  if (auto s = db->exec("PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;"); !s)
    return s.error();
  return db;
}

Database::~Database() { sqlite3_close_v2(db_); }

Status Database::exec(std::string_view sql) {
  std::string text(sql);
  char* message = nullptr;
  int rc = sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &message);
  if (rc == SQLITE_OK) return ok_status();
  std::string m = message ? message : sqlite3_errstr(rc);
  sqlite3_free(message);
  return Error{fmt::format("{}: '{}': {}", path_.string(), sql_excerpt(sql), m)};
}

Result<Statement> Database::prepare(std::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr);
  if (rc != SQLITE_OK) return error(fmt::format("preparing '{}'", sql_excerpt(sql)));
  return Statement(stmt, this);
}

std::int64_t Database::last_insert_rowid() const { return sqlite3_last_insert_rowid(db_); }

int Database::changes() const { return sqlite3_changes(db_); }

Error Database::error(std::string_view what) const {
  return Error{fmt::format("{}: {}: {}", path_.string(), what, sqlite3_errmsg(db_))};
}

}  // namespace kforge::store
