#pragma once
// Test helpers: a compile cache shared by all test processes (ctest runs each test in its own
// process; without sharing, each would rebuild the precompiled ATen header), and a private
// state folder per process for secrets, references and scratch.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace kforge::eval {

inline std::filesystem::path test_compile_cache() {
  if (const char* d = std::getenv("KFORGE_TEST_CACHE"); d && *d) return d;
  return std::filesystem::temp_directory_path() / "kforge-test-cache";
}

inline std::filesystem::path test_state_dir(const std::string& suite) {
  return std::filesystem::temp_directory_path() / ("kforge-" + suite + "-" + std::to_string(::getpid()));
}

}  // namespace kforge::eval
