#pragma once
// kforge serve's scratch folder (diff(1)'s files for the run page): <state>/tmp/serve-<pid>, one
// per server so that one server's end never pulls another's from under it. Removed when the
// server ends; a folder whose server died without removing it (its pid is gone) is removed when
// the next server starts.

#include <filesystem>

namespace kforge::web {

class ServeScratch {
 public:
  // `tmp_dir`: <state>/tmp. Removes the folders of servers that are gone; makes nothing yet (the
  // first diff writes the folder).
  explicit ServeScratch(const std::filesystem::path& tmp_dir);
  ~ServeScratch();
  ServeScratch(const ServeScratch&) = delete;
  ServeScratch& operator=(const ServeScratch&) = delete;

  const std::filesystem::path& dir() const { return dir_; }

 private:
  std::filesystem::path dir_;
};

// Removes every tmp_dir/serve-<pid> whose process is gone; returns how many.
int remove_stale_scratch(const std::filesystem::path& tmp_dir);

}  // namespace kforge::web
