// Reading kforge's variables: the only getenv calls of the kforge command itself.
#include "kforge/cli/settings.h"

#include <fmt/format.h>

#include <unistd.h>

#include <cstdlib>
#include <string_view>

#include "kforge/cli/errors.h"

namespace kforge::cli {
namespace {

double seconds(const EnvLookup& env, const char* name, double fallback) {
  auto v = env(name);
  if (!v || v->empty()) return fallback;
  char* end = nullptr;
  const double s = std::strtod(v->c_str(), &end);
  if (*end || s < 0)
    throw UsageError(fmt::format("{} must be a number of seconds, not '{}'", name, *v));
  return s;
}

// "a:b::c" → {"a", "b", "c"}: colon-separated, empty entries dropped.
std::vector<std::string> dirs(const std::optional<std::string>& v) {
  std::vector<std::string> out;
  std::string_view rest = v ? std::string_view(*v) : std::string_view();
  while (!rest.empty()) {
    const auto colon = rest.find(':');
    if (colon != 0) out.emplace_back(rest.substr(0, colon));
    rest = colon == std::string_view::npos ? std::string_view{} : rest.substr(colon + 1);
  }
  return out;
}

std::string text(const EnvLookup& env, const char* name) { return env(name).value_or(""); }

}  // namespace

Settings read_settings(const EnvLookup& env) {
  Settings s;
  s.cxx = text(env, "KFORGE_CXX");
  s.toolchain_dirs = dirs(env("KFORGE_TOOLCHAIN_DIRS"));
  s.cuda_home = text(env, "KFORGE_CUDA_HOME");
  s.cuda_arch = text(env, "KFORGE_CUDA_ARCH");
  if (!s.cuda_arch.empty() && s.cuda_arch.rfind("sm_", 0) != 0)
    throw UsageError("KFORGE_CUDA_ARCH must name an architecture like sm_90, not '" + s.cuda_arch +
                     "'");
  s.lock_wait_s = seconds(env, "KFORGE_LOCK_WAIT_S", s.lock_wait_s);
  s.peak_budget_s = seconds(env, "KFORGE_PEAK_BUDGET_S", s.peak_budget_s);
  s.quiet_wait_s = seconds(env, "KFORGE_QUIET_WAIT_S", s.quiet_wait_s);
  // On by default, on a terminal and in a pipe alike (a 60 s baseline build with no word looked
  // like a hang in CI logs).
  s.progress = text(env, "KFORGE_PROGRESS") != "0";
  s.colour = text(env, "KFORGE_COLOR");
  s.no_color = text(env, "NO_COLOR");
  s.term = text(env, "TERM");
  for (const char* name : {"VISUAL", "EDITOR"})
    if (s.editor = text(env, name); !s.editor.empty()) break;
  if (s.editor.empty()) s.editor = "vi";
  // KFORGE_BIN_DIR too: a job's kforge is the driver's binary, and where the driver's runner is
  // not beside it (a sanitizer tree's instrumented kforge beside a plain runner), neither is the
  // job's.
  for (const char* name :
       {"KFORGE_CXX", "KFORGE_TOOLCHAIN_DIRS", "KFORGE_LOCK_WAIT_S", "KFORGE_PEAK_BUDGET_S",
        "KFORGE_QUIET_WAIT_S", "KFORGE_CACHE_DIR", "KFORGE_BIN_DIR"})
    if (auto v = env(name)) s.node_env.push_back(std::string(name) + "=" + *v);
  return s;
}

std::vector<std::string> secret_variables_present() {
  std::vector<std::string> names;
  for (char** e = environ; e && *e; ++e) {
    std::string_view entry(*e);
    auto name = entry.substr(0, entry.find('='));
    auto ends = [&](std::string_view tail) {
      return name.size() >= tail.size() && name.substr(name.size() - tail.size()) == tail;
    };
    if (ends("_API_KEY") || ends("_TOKEN") || name.find("_SECRET") != std::string_view::npos)
      names.emplace_back(name);
  }
  return names;
}

Settings current_settings() {
  return read_settings([](const char* name) -> std::optional<std::string> {
    if (const char* v = std::getenv(name)) return std::string(v);
    return std::nullopt;
  });
}

}  // namespace kforge::cli
