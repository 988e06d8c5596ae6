#pragma once
// The pallas target's compiler: a kernel.py is not compiled to machine code (JAX traces and
// lowers it in the worker), but it is checked before anything runs it, as a compiler would:
// byte-compiled and statically checked by kforge_pallas_check.py (runner/python/) under the venv's
// interpreter in the compile sandbox, the findings parsed as diagnostics (file:line:col with the
// source line), the outcome cached by content hash like the other compilers'. The artifact is the
// checked module itself (kernel.py in the cache entry).

#include <atomic>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

#include "kforge/toolchain/compile_sandbox.h"
#include "kforge/toolchain/compiler.h"

namespace kforge::toolchain {

struct PallasCompilerOptions {
  std::filesystem::path python;        // the venv's interpreter
  std::filesystem::path venv;          // its folder: readable in the sandbox
  std::filesystem::path checker;       // kforge_pallas_check.py
  std::filesystem::path cache_dir;     // artifacts live in cache_dir/obj
  std::filesystem::path scratch_root;  // "": $TMPDIR/kforge-build-<uid>
  std::chrono::seconds timeout{60};
  SandboxLimits limits{.output_bytes = 16ULL << 20, .address_space = 2ULL << 30};
  const std::atomic<bool>* cancel = nullptr;  // Ctrl-C: the check is killed, nothing is cached
};

class PallasCompiler : public Compiler {
 public:
  explicit PallasCompiler(PallasCompilerOptions options);
  CompileResult compile(const CompileRequest& request) override;
  std::string version() override;  // "Python 3.11.2, JAX 0.10.2"
  std::vector<std::string> flags_for(Role) const override { return {}; }

 private:
  std::string identity();

  PallasCompilerOptions options_;
  std::mutex mu_;
  std::string identity_, version_;
};

}  // namespace kforge::toolchain
