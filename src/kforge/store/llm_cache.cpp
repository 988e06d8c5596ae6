// Response cache rows.
#include "kforge/store/llm_cache.h"

namespace kforge::store {

Result<std::optional<std::string>> find_cached_reply(Database& db, const std::string& key) {
  auto st = db.prepare("SELECT reply FROM llm_cache WHERE key = ?");
  if (!st) return st.error();
  st->bind(1, key);
  auto row = st->step();
  if (!row) return row.error();
  if (!*row) return std::optional<std::string>();
  return std::optional<std::string>(st->text(0));
}

Status put_cached_reply(Database& db, const std::string& key, const std::string& created_at,
                        const std::string& reply) {
  auto st =
      db.prepare("INSERT OR REPLACE INTO llm_cache (key, created_at, reply) VALUES (?, ?, ?)");
  if (!st) return st.error();
  st->bind(1, key).bind(2, created_at).bind(3, reply);
  return st->run();
}

}  // namespace kforge::store
