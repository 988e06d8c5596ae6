#pragma once
// The llm_cache table: replies by request key, so a re-run with the same prompts is free.
// The key and the reply's encoding belong to the llm layer; here they are opaque strings.

#include <optional>
#include <string>

#include "kforge/core/result.h"
#include "kforge/store/database.h"

namespace kforge::store {

Result<std::optional<std::string>> find_cached_reply(Database& db, const std::string& key);
// Replaces an earlier entry under the same key.
Status put_cached_reply(Database& db, const std::string& key, const std::string& created_at,
                        const std::string& reply);

}  // namespace kforge::store
