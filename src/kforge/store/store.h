#pragma once
// The store layer's face: kforge's SQLite database (.kforge/kforge.db), opened and migrated to
// the current schema, and the tables layers record into (sessions, llm_calls, llm_cache so far).

#include <filesystem>
#include <memory>

#include "kforge/core/result.h"
#include "kforge/store/database.h"
#include "kforge/store/llm_cache.h"
#include "kforge/store/llm_calls.h"
#include "kforge/store/migrations.h"
#include "kforge/store/runs.h"
#include "kforge/store/sessions.h"

namespace kforge::store {

// The store under a state folder: STATE_DIR/kforge.db.
std::filesystem::path store_path(const std::filesystem::path& state_dir);

// Opens the database (creating it and its folder when missing) and runs pending migrations.
Result<std::unique_ptr<Database>> open_store(const std::filesystem::path& path);

}  // namespace kforge::store
