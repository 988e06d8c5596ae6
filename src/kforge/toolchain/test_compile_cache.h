#pragma once
// For tests: the compile cache that every test process of a build tree shares (ctest runs each test
// in its own process; without sharing, each would rebuild the precompiled ATen header: 12-18 s of
// CPU on a Zen 4 core).
#include <cstdlib>
#include <filesystem>

namespace kforge::toolchain {

// KFORGE_TEST_CACHE when set; else beside the binaries under test (ctest gives every test
// KFORGE_BIN_DIR; a second variable in the same ENVIRONMENT property never arrived, so every test
// used to build its own ATen header and measure its own peaks); else one folder in /tmp.
inline std::filesystem::path test_compile_cache() {
  if (const char* d = std::getenv("KFORGE_TEST_CACHE"); d && *d) return d;
  if (const char* bin = std::getenv("KFORGE_BIN_DIR"); bin && *bin)
    return std::filesystem::path(bin).parent_path() / "test-cache";
  return std::filesystem::temp_directory_path() / "kforge-test-cache";
}

}  // namespace kforge::toolchain
