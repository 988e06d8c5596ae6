// Opening the store.
#include "kforge/store/store.h"

namespace kforge::store {

std::filesystem::path store_path(const std::filesystem::path& state_dir) {
  return state_dir / "kforge.db";
}

Result<std::unique_ptr<Database>> open_store(const std::filesystem::path& path) {
  auto db = Database::open(path);
  if (!db) return db.error();
  if (auto s = migrate(**db); !s) return s.error();
  return db;
}

}  // namespace kforge::store
