#pragma once
// Test helpers: the compile cache shared by all test processes (test_compile_cache.h), the user
// cache of the tests that run the binary, and a private state folder per process for secrets,
// references and scratch.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "kforge/core/paths.h"
#include "kforge/toolchain/cpp_compiler.h"
#include "kforge/toolchain/test_compile_cache.h"

namespace kforge::eval {

using toolchain::test_compile_cache;

// The per-user cache (KFORGE_CACHE_DIR) that tests running the kforge binary share: peaks, the
// compiled artifacts and the ATen header, measured and built once per build tree.
inline std::filesystem::path test_user_cache() { return test_compile_cache() / "user-cache"; }

inline std::filesystem::path test_state_dir(const std::string& suite) {
  return std::filesystem::temp_directory_path() /
         ("kforge-" + suite + "-" + std::to_string(::getpid()));
}

// A C++ compiler for tests: the shared compile cache and the suite's bench/include.
inline toolchain::CppCompilerOptions test_compiler_options() {
  return {.cache_dir = test_compile_cache(),
          .include_dir = core::source_dir() / "bench" / "include"};
}

// A correct, naive kernel for 8p_gemm (c = a·b, rows in parallel).
inline const char* kNaiveGemm = R"(#include "kforge_task.h"
extern "C" void kernel(const float* a, const float* b, float* c) {
  using namespace task;
  #pragma omp parallel for
  for (std::int64_t i = 0; i < M; ++i) {
    for (std::int64_t j = 0; j < N; ++j) c[i * N + j] = 0;
    for (std::int64_t k = 0; k < K; ++k)
      for (std::int64_t j = 0; j < N; ++j) c[i * N + j] += a[i * K + k] * b[k * N + j];
  }
}
)";

}  // namespace kforge::eval
