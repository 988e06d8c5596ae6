#pragma once
// The sessions table: one row per kforge run that talks to models (and, later, searches).

#include <optional>
#include <string>
#include <vector>

#include "kforge/core/result.h"
#include "kforge/store/database.h"

namespace kforge::store {

struct SessionRecord {
  std::string id;
  std::string started_at;  // ISO 8601, UTC
  std::string command;
  std::string cwd;
};

// Adds the session; a resumed session (same id) keeps its first row.
Status insert_session(Database& db, const SessionRecord& session);
Result<std::optional<SessionRecord>> find_session(Database& db, const std::string& id);
// Newest first.
Result<std::vector<SessionRecord>> list_sessions(Database& db);

}  // namespace kforge::store
