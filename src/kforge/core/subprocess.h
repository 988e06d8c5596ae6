#pragma once
// Runs a program to completion with a wall-clock limit, capturing its output. The child gets its
// own process group, so a timeout kills everything it started; it inherits no descriptor but
// 0-2 and dies with kforge. A sandboxed child (the compiler) also gets a clean environment,
// rlimits and a Landlock view.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "kforge/core/landlock.h"

namespace kforge::core {

// Resource limits for the child (setrlimit before exec; they hold for everything it runs).
struct ProcessLimits {
  std::uint64_t file_size = 0;      // RLIMIT_FSIZE in bytes, 0: inherit. A write past it kills
                                    // the writer with SIGXFSZ (the default action is kept)
  std::uint64_t address_space = 0;  // RLIMIT_AS in bytes, 0: inherit
  bool core_dumps = false;          // false: RLIMIT_CORE 0 (a crashing child leaves no core file)
};

struct ProcessOptions {
  std::chrono::milliseconds timeout{60000};
  std::filesystem::path cwd;                  // empty: inherit
  std::vector<std::string> extra_env;         // "NAME=value", replacing any inherited NAME
  std::optional<std::string> stdin_data;      // written to the child's stdin, then closed
  std::size_t capture_limit = 4 << 20;        // bytes kept per stream (the tail is dropped)
  const std::atomic<bool>* cancel = nullptr;  // when it turns true, the child's group is killed
  // The child's whole environment ("NAME=value"; extra_env still applies on top). Unset: kforge's
  // own environment is inherited. A bare program name is looked up on this environment's PATH.
  std::optional<std::vector<std::string>> clean_env;
  // SIGKILL the child when the thread that started it dies (PR_SET_PDEATHSIG); run_process waits
  // in that thread, so this fires only when kforge itself is killed.
  bool die_with_parent = true;
  ProcessLimits limits;
  // Confine the child's filesystem (and TCP) before exec. Where the kernel has no Landlock the
  // child runs unconfined and ProcessResult::landlock_abi says 0.
  std::optional<LandlockView> landlock;
};

struct ProcessResult {
  int exit_code = -1;  // valid when exited
  int signal = 0;      // non-zero when killed by a signal
  bool exited = false;
  bool timed_out = false;
  bool cancelled = false;
  bool spawn_failed = false;
  std::string out;
  std::string err;
  double wall_ms = 0;
  int landlock_abi = 0;  // the Landlock ABI the child ran under; 0: not confined

  bool success() const { return exited && exit_code == 0 && !timed_out; }
  std::string describe()
      const;  // "exit status 1", "killed by signal 11 (...)", "timed out after 60.0 s"
};

ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options = {});

}  // namespace kforge::core
