// Which walls hold here, and whether untrusted code may run behind them.
#include "kforge/eval/walls.h"

#include <fmt/format.h>

#include <cstdlib>
#include <string_view>

#include "kforge/core/landlock.h"

namespace kforge::eval {
namespace {

bool env_is(const char* name, std::string_view value) {
  const char* v = std::getenv(name);
  return v && value == v;
}

}  // namespace

std::string Walls::describe() const {
  std::string files =
      landlock_abi > 0
          ? fmt::format("Landlock ABI {} (files: its own folder and the CPU description only)",
                        landlock_abi)
          : std::string(
                "NO Landlock on this machine: its process may read every file the user "
                "may (judged anyway: KFORGE_ALLOW_NO_LANDLOCK=1)");
  return files +
         "; seccomp (no processes, exec, sockets or executable writable memory; scheduling, "
         "limits and signals on itself only); rlimits; a process of its own, no shared writable "
         "memory";
}

nlohmann::json Walls::to_json() const {
  return {{"landlock_abi", landlock_abi},
          {"landlock", landlock_abi > 0},
          {"without_landlock_allowed", without_landlock_allowed},
          {"seccomp", true},
          {"own_process_only", true},
          {"describe", describe()}};
}

Walls machine_walls() {
  Walls w;
  w.landlock_abi = env_is("KFORGE_LANDLOCK_ABI", "0") ? 0 : core::landlock_abi();
  w.without_landlock_allowed = env_is("KFORGE_ALLOW_NO_LANDLOCK", "1");
  return w;
}

std::optional<Judgement> refuse_untrusted(const Walls& walls) {
  if (walls.landlock_abi > 0 || walls.without_landlock_allowed) return std::nullopt;
  return Judgement{
      Verdict::runtime_error,
      "not judged: this machine's Linux kernel has no Landlock (ABI 0), the wall that keeps an "
      "untrusted kernel's process and its compiler from reading the user's files (secrets, keys, "
      "kforge's seeds); nothing was compiled or run. To judge with seccomp, rlimits and a process "
      "of its own only, set KFORGE_ALLOW_NO_LANDLOCK=1 (each verdict then says the file wall was "
      "missing)"};
}

}  // namespace kforge::eval
