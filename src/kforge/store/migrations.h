#pragma once
// The schema, as an ordered list of migrations: the database's PRAGMA user_version says how many
// have run. A layer that needs a table appends a migration here; a released one never changes.

#include <span>

#include "kforge/core/result.h"
#include "kforge/store/database.h"

namespace kforge::store {

struct Migration {
  int version;       // 1, 2, 3, … in order; user_version after it has run
  const char* name;  // what it adds, for error messages
  const char* sql;
};

std::span<const Migration> migrations();

// Runs the migrations the database has not seen, each in its own transaction (two processes
// opening a fresh store at once cannot both run one). A database from a newer kforge is refused.
Status migrate(Database& db);

// The version a database is at (PRAGMA user_version).
Result<int> schema_version(Database& db);

}  // namespace kforge::store
