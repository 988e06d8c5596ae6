// Per-server scratch folders, and the cleaning of dead servers' ones.
#include "kforge/web/serve_scratch.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <string>

namespace kforge::web {
namespace {

constexpr std::string_view kPrefix = "serve-";

// A pid that names no process now. A pid reused since only keeps a dead server's folder a while.
bool gone(pid_t pid) { return ::kill(pid, 0) != 0 && errno == ESRCH; }

}  // namespace

int remove_stale_scratch(const std::filesystem::path& tmp_dir) {
  int removed = 0;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(tmp_dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(kPrefix, 0) != 0) continue;
    const std::string digits = name.substr(kPrefix.size());
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos ||
        digits.size() > 9)
      continue;
    if (!gone(static_cast<pid_t>(std::stol(digits)))) continue;
    std::error_code rm;
    std::filesystem::remove_all(entry.path(), rm);
    removed += !rm;
  }
  return removed;
}

ServeScratch::ServeScratch(const std::filesystem::path& tmp_dir)
    : dir_(tmp_dir / (std::string(kPrefix) + std::to_string(::getpid()))) {
  remove_stale_scratch(tmp_dir);
}

ServeScratch::~ServeScratch() {
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

}  // namespace kforge::web
