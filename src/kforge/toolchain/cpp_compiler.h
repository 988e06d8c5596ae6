#pragma once
// The cpu target's compiler: g++ (or clang++, via KFORGE_CXX) to a shared object, with a
// timeout, a content-hash artifact cache, and a precompiled ATen header for baselines, which
// build against the torch wheel of kforge's Python environment (else the system's libtorch:
// core/torch_install.h). Every compiler run is sandboxed (compile_sandbox.h): sources are
// untrusted input.

#include <atomic>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kforge/core/torch_install.h"
#include "kforge/toolchain/compile_sandbox.h"
#include "kforge/toolchain/compiler.h"

namespace kforge::toolchain {

struct CppCompilerOptions {
  std::string cxx;  // empty: g++ (looked up on /usr/bin:/bin); the CLI passes $KFORGE_CXX
  std::filesystem::path cache_dir;  // artifacts live in cache_dir/obj
  std::filesystem::path
      include_dir;  // bench/include: helpers for references, baselines and experts
  // Where compiles run, one fresh folder each; empty: $TMPDIR/kforge-build-<uid> (0700). Keep it
  // outside the state folder, so no relative path from a compile leads anywhere of kforge's.
  std::filesystem::path scratch_root;
  std::chrono::seconds timeout{60};
  std::chrono::seconds baseline_timeout{600};  // the first ATen compile builds the PCH
  // A compiler installed outside /usr (e.g. /opt/gcc-14): its trees, readable in the sandbox
  // ($KFORGE_TOOLCHAIN_DIRS in the CLI).
  std::vector<std::filesystem::path> toolchain_dirs;
  // Where baselines find libtorch: the torch wheel of this Python environment (empty:
  // core::python_env_dir(), which KFORGE_PYENV and --pyenv set), else the system's under
  // system_prefix (Debian's libtorch-dev).
  std::filesystem::path python_env;
  std::filesystem::path system_prefix = "/usr";
  // Candidates: a 64 MiB object is already absurd for a kernel. Address space: cc1plus peaks at
  // ~940 MiB (VmPeak) building the ATen PCH and ~630 MiB compiling a baseline with it (g++ 12,
  // libtorch 1.13; 1.1 GiB resident with torch 2.15's wheel); 4 GiB leaves a wide margin and
  // still stops a template bomb.
  SandboxLimits candidate_limits{.output_bytes = 64ULL << 20, .address_space = 4ULL << 30};
  // Trusted roles: the ATen PCH is ~275 MiB (g++ 12, libtorch 1.13), 373 MiB with torch 2.15's
  // wheel; 1 GiB leaves room to grow.
  SandboxLimits trusted_limits{.output_bytes = 1ULL << 30, .address_space = 4ULL << 30};
  // Ctrl-C (the CLI's interrupt flag): a compile in flight is killed, and not cached. Null: never.
  const std::atomic<bool>* cancel = nullptr;
};

class CppCompiler : public Compiler {
 public:
  explicit CppCompiler(CppCompilerOptions options);
  CompileResult compile(const CompileRequest& request) override;
  bool cached(const CompileRequest& request) override;
  std::string vectorization_output(const CompileRequest& request) override;
  std::string version() override;  // the first line of `--version`

  // The flags a role compiles with (without -I for the scratch folder), shown by `kforge show`.
  // A baseline's name libtorch's headers.
  std::vector<std::string> flags_for(Role role) const override;
  std::vector<std::filesystem::path> runtime_reads(Role role) const override;

  // The libtorch baselines build against, or why there is none.
  const Result<core::TorchInstall>& torch() const { return torch_; }

 private:
  std::string cache_key(const CompileRequest& request);  // everything that shapes the artifact
  std::filesystem::path cache_entry(const std::string& key) const;
  std::string identity();            // compiler version + host CPU, part of every cache key
  std::string include_dir_digest();  // what bench/include holds, part of every trusted role's key
  // Headers every role may include, candidates too, copied into the compile's own folder (a
  // candidate reads nothing of the repository): kforge/simd_math.h, the vetted vector math the
  // experts use. Their text is part of every cache key.
  static constexpr const char* kPublicHeaders[] = {"kforge/simd_math.h"};
  const std::vector<std::pair<std::string, std::string>>& public_headers();
  Status write_public_headers(const std::filesystem::path& scratch);
  std::filesystem::path precompiled_torch_header(std::string& error);
  Result<std::filesystem::path> new_scratch();
  CompileSandbox sandbox_for(Role role, const std::filesystem::path& scratch,
                             const std::filesystem::path& pch_dir) const;
  std::vector<std::string> compile_argv(const CompileRequest& request,
                                        const std::string& file) const;

  std::vector<std::string> torch_link_flags() const;

  CppCompilerOptions options_;
  Result<core::TorchInstall> torch_;
  std::mutex mu_;
  std::string identity_, version_;
  std::string include_digest_;
  std::optional<std::vector<std::pair<std::string, std::string>>> public_headers_;
};

}  // namespace kforge::toolchain
