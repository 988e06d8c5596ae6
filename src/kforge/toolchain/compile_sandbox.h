#pragma once
// The walls around the compiler. A kernel source is untrusted input to g++, which reads any file
// it is pointed at (#include, asm(".incbin")) and quotes it back in diagnostics that reach the
// model. So the compiler (and as, ld) runs with a clean environment, under rlimits, and under
// Landlock sees only the system toolchain, its own scratch folder and, for kforge's own code
// (baselines, experts, references, generators), bench/include and the precompiled ATen header:
// never the state folder (secrets, cached reference outputs), the repository or the user's files.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "kforge/core/subprocess.h"

namespace kforge::toolchain {

struct SandboxLimits {
  std::uint64_t output_bytes = 0;   // RLIMIT_FSIZE: the largest file the compiler may write
  std::uint64_t address_space = 0;  // RLIMIT_AS of each process (cc1plus, as, ld)
};

struct CompileSandbox {
  std::filesystem::path scratch;   // cwd, HOME, TMPDIR: the only writable folder
  std::filesystem::path compiler;  // as configured: "g++" or a path
  std::vector<std::filesystem::path>
      toolchain_dirs;  // a compiler installed outside the system trees
  std::vector<std::filesystem::path>
      trusted_reads;  // bench/include, the PCH folder: trusted roles only
  SandboxLimits limits;
  std::chrono::milliseconds timeout{60000};
  // Ctrl-C: the compiler's process group is killed within a poll once this turns true (the run
  // reads cancelled, and its outcome is not cached).
  const std::atomic<bool>* cancel = nullptr;
};

// PATH=/usr/bin:/bin, LANG=C, HOME and TMPDIR the scratch folder; nothing of kforge's own
// environment (no API keys, no CPATH, LIBRARY_PATH, GCC_EXEC_PREFIX, COMPILER_PATH).
std::vector<std::string> compile_environment(const std::filesystem::path& scratch);

// What the compiler may read and write.
core::LandlockView compile_view(const CompileSandbox& sandbox);

// run_process options for one sandboxed compiler run.
core::ProcessOptions sandboxed(const CompileSandbox& sandbox, std::size_t capture_limit);

// For a failed compile: the sentence naming the sandbox limit it hit ("the compiler's output
// exceeded 64 MiB (RLIMIT_FSIZE): ..."), or empty when it hit none.
std::string sandbox_limit_hit(const std::string& compiler_output, const SandboxLimits& limits);

// For a failed compile that was refused a file: a note saying what the compiler may read.
std::string sandbox_refusal_note(const std::string& compiler_output);

}  // namespace kforge::toolchain
