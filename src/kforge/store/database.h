#pragma once
// A small SQLite wrapper: one connection (WAL journal, busy timeout, foreign keys on), prepared
// statements with typed binds and columns, and errors that name the database file.

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "kforge/core/result.h"

struct sqlite3;
struct sqlite3_stmt;

namespace kforge::store {

class Database;

// A prepared statement. Binds are 1-based (as in SQLite), columns 0-based. A bind that fails
// is reported by the next step(). Use from one thread at a time.
class Statement {
 public:
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&& other) noexcept;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement();

  Statement& bind(int index, std::string_view text);
  Statement& bind(int index, const char* text) { return bind(index, std::string_view(text)); }
  Statement& bind(int index, const std::string& text) {
    return bind(index, std::string_view(text));
  }
  Statement& bind(int index, std::int64_t value);
  Statement& bind(int index, int value) { return bind(index, static_cast<std::int64_t>(value)); }
  Statement& bind(int index, bool value) { return bind(index, static_cast<std::int64_t>(value)); }
  Statement& bind(int index, double value);
  Statement& bind_null(int index);
  // NULL for an empty optional.
  template <typename T>
  Statement& bind(int index, const std::optional<T>& value) {
    return value ? bind(index, *value) : bind_null(index);
  }

  // Advances: true when a row is ready to read, false when the statement is done.
  Result<bool> step();
  // Steps to the end (INSERT, UPDATE, DDL).
  Status run();
  // Back to the start, binds kept (for running the same statement again).
  void reset();

  std::int64_t int64(int column) const;
  double real(int column) const;
  std::string text(int column) const;
  bool is_null(int column) const;
  // nullopt for NULL.
  std::optional<double> optional_real(int column) const;
  std::optional<std::int64_t> optional_int64(int column) const;

 private:
  friend class Database;
  Statement(sqlite3_stmt* stmt, const Database* db) : stmt_(stmt), db_(db) {}
  void note_bind(int rc, int index);

  sqlite3_stmt* stmt_ = nullptr;
  const Database* db_ = nullptr;
  std::string bind_error_;
};

class Database {
 public:
  // Opens (creating when missing) the file with WAL, synchronous=NORMAL, a busy timeout and
  // foreign keys. The schema is not touched: store::open_store() also migrates.
  static Result<std::unique_ptr<Database>> open(
      const std::filesystem::path& path,
      std::chrono::milliseconds busy_timeout = std::chrono::milliseconds(5000));
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;
  ~Database();

  Status exec(std::string_view sql);
  Result<Statement> prepare(std::string_view sql);
  std::int64_t last_insert_rowid() const;
  int changes() const;  // rows the last INSERT, UPDATE or DELETE touched
  const std::filesystem::path& path() const { return path_; }

  // "PATH: WHAT: <sqlite's message>", for errors raised by this connection.
  Error error(std::string_view what) const;

 private:
  Database(sqlite3* db, std::filesystem::path path) : db_(db), path_(std::move(path)) {}
  sqlite3* db_ = nullptr;
  std::filesystem::path path_;
};

}  // namespace kforge::store
