#pragma once
// Runs a program to completion with a wall-clock limit, capturing its output. The child gets its
// own process group, so a timeout kills everything it started.

#include <atomic>
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kforge::core {

struct ProcessOptions {
  std::chrono::milliseconds timeout{60000};
  std::filesystem::path cwd;               // empty: inherit
  std::vector<std::string> extra_env;      // "NAME=value" added to the inherited environment
  std::optional<std::string> stdin_data;   // written to the child's stdin, then closed
  std::size_t capture_limit = 4 << 20;     // bytes kept per stream (the tail is dropped)
  const std::atomic<bool>* cancel = nullptr;  // when it turns true, the child's group is killed
};

struct ProcessResult {
  int exit_code = -1;   // valid when exited
  int signal = 0;       // non-zero when killed by a signal
  bool exited = false;
  bool timed_out = false;
  bool cancelled = false;
  bool spawn_failed = false;
  std::string out;
  std::string err;
  double wall_ms = 0;

  bool success() const { return exited && exit_code == 0 && !timed_out; }
  std::string describe() const;  // "exit status 1", "killed by SIGSEGV", "timed out after 60 s"
};

ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options = {});

}  // namespace kforge::core
