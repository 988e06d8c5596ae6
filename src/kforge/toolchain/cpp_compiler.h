#pragma once
// The cpu target's compiler: g++ (or clang++, via KFORGE_CXX) to a shared object, with a
// timeout, a content-hash artifact cache, and a precompiled ATen header for baselines.

#include <chrono>
#include <filesystem>
#include <mutex>

#include "kforge/toolchain/compiler.h"

namespace kforge::toolchain {

struct CppCompilerOptions {
  std::string cxx;                    // empty: $KFORGE_CXX or g++
  std::filesystem::path cache_dir;    // artifacts live in cache_dir/obj
  std::filesystem::path include_dir;  // bench/include: helpers for baselines and experts
  std::chrono::seconds timeout{60};
  std::chrono::seconds baseline_timeout{600};  // the first ATen compile builds the PCH
};

class CppCompiler : public Compiler {
 public:
  explicit CppCompiler(CppCompilerOptions options);
  CompileResult compile(const CompileRequest& request) override;
  std::string vectorization_output(const CompileRequest& request) override;

  // The flags a role compiles with (without -I for the scratch folder), shown by `kforge show`.
  std::vector<std::string> flags_for(Role role) const;

 private:
  std::string identity();  // compiler version + host CPU, part of every cache key
  std::filesystem::path precompiled_torch_header(std::string& error);

  CppCompilerOptions options_;
  std::mutex mu_;
  std::string identity_;
};

}  // namespace kforge::toolchain
