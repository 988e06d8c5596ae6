// Where things live.
#include "kforge/core/paths.h"

#include <fmt/format.h>
#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "kforge/core/suggest.h"

namespace kforge::core {

// The folder variables are read here, below every layer, because every layer and every test
// resolves its folders through these functions; docs/environment.md lists them with the rest.
std::filesystem::path state_dir() {
  if (const char* d = std::getenv("KFORGE_DIR"); d && *d) return std::filesystem::absolute(d);
  return std::filesystem::current_path() / ".kforge";
}

namespace {

std::string home_dir() {
  if (const char* h = std::getenv("HOME"); h && *h == '/') return h;
  if (const passwd* pw = ::getpwuid(::getuid()); pw && pw->pw_dir && *pw->pw_dir == '/')
    return pw->pw_dir;
  return "";
}

}  // namespace

std::filesystem::path user_cache_dir() {
  if (const char* d = std::getenv("KFORGE_CACHE_DIR"); d && *d) return std::filesystem::absolute(d);
  // The XDG base-directory rule: a relative value is invalid and ignored.
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x == '/')
    return std::filesystem::path(x) / "kforge";
  if (auto home = home_dir(); !home.empty())
    return std::filesystem::path(home) / ".cache" / "kforge";
  return state_dir() / "cache";
}

std::filesystem::path resolve_source_dir(const std::string& override,
                                         const std::filesystem::path& exe_dir,
                                         const std::filesystem::path& built_from) {
  if (!override.empty()) return override;
  // A release's layout (scripts/release): bin/ beside share/kforge. The build tree's bin/ has no
  // ../share/kforge, so a build keeps reading its own source tree.
  std::error_code ec;
  auto shared = exe_dir.parent_path() / "share" / "kforge";
  if (std::filesystem::is_directory(shared, ec)) return shared;
  return built_from;
}

std::filesystem::path source_dir() {
  const char* d = std::getenv("KFORGE_SOURCE_DIR");
  return resolve_source_dir(d ? d : "", executable_dir(), KFORGE_SOURCE_DIR);
}

std::filesystem::path executable_dir() {
  std::error_code ec;
  auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::current_path() : exe.parent_path();
}

std::filesystem::path helper_dir() {
  if (const char* d = std::getenv("KFORGE_BIN_DIR"); d && *d) return d;
  return executable_dir();
}

std::filesystem::path default_suite_dir() {
  auto local = std::filesystem::current_path() / "bench" / "jaxbench";
  if (std::filesystem::is_directory(local)) return local;
  return source_dir() / "bench" / "jaxbench";
}

namespace {

// "12p_rmsnorm" sorts by its leading number, then by name.
long leading_number(const std::string& name) {
  long n = 0;
  std::size_t i = 0;
  while (i < name.size() && std::isdigit(static_cast<unsigned char>(name[i])))
    n = n * 10 + (name[i++] - '0');
  return i == 0 ? 1L << 30 : n;
}

}  // namespace

std::vector<std::filesystem::path> list_task_dirs(const std::filesystem::path& suite) {
  std::vector<std::filesystem::path> dirs;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(suite, ec))
    if (entry.is_directory() && std::filesystem::exists(entry.path() / "task.toml"))
      dirs.push_back(entry.path());
  std::sort(dirs.begin(), dirs.end(), [](const auto& a, const auto& b) {
    auto na = a.filename().string(), nb = b.filename().string();
    long la = leading_number(na), lb = leading_number(nb);
    return la != lb ? la < lb : na < nb;
  });
  return dirs;
}

Result<std::filesystem::path> find_task_dir(const std::string& task) {
  std::filesystem::path direct(task);
  if (std::filesystem::exists(direct / "task.toml")) return std::filesystem::absolute(direct);
  if (std::filesystem::is_directory(direct) && task.find('/') != std::string::npos)
    return Error{fmt::format("{}: no task.toml in this folder", task)};
  auto suite = default_suite_dir();
  if (std::filesystem::exists(suite / task / "task.toml")) return suite / task;
  std::vector<std::filesystem::path> matches;
  for (const auto& dir : list_task_dirs(suite)) {
    std::string name = dir.filename().string();
    if (name.rfind(task + "_", 0) == 0 || name.rfind(task, 0) == 0) matches.push_back(dir);
  }
  if (matches.size() == 1) return matches.front();
  if (matches.empty()) {
    std::vector<std::string> ids;
    for (const auto& dir : list_task_dirs(suite)) ids.push_back(dir.filename().string());
    return Error{fmt::format(
        "task '{}' not found: not a folder with task.toml, nor an id in {}{} (try `kforge list`)",
        task, suite.string(), did_you_mean(task, ids))};
  }
  std::string names;
  for (const auto& m : matches) names += (names.empty() ? "" : ", ") + m.filename().string();
  return Error{fmt::format("task '{}' is ambiguous: {}", task, names)};
}

}  // namespace kforge::core
