#pragma once
// The cuda target's compiler: nvcc to a shared object whose extern "C" host entry launches the
// kernels, for the GPU's architecture (sm_90 when none is found). The same sandbox, content-hash
// cache and diagnostics as the cpp compiler; ptxas's register, spill and shared-memory figures
// (-Xptxas -v) are parsed and kept with the artifact.

#include <atomic>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "kforge/core/torch_install.h"
#include "kforge/toolchain/compile_sandbox.h"
#include "kforge/toolchain/compiler.h"
#include "kforge/toolchain/link_check.h"

namespace kforge::toolchain {

struct CudaCompilerOptions {
  std::filesystem::path cuda_home = "/usr/local/cuda";  // $KFORGE_CUDA_HOME in the CLI
  std::string arch = "sm_90";         // the device's compute capability; the CLI detects it
  std::filesystem::path cache_dir;    // artifacts live in cache_dir/obj
  std::filesystem::path include_dir;  // bench/include: for trusted roles only
  std::filesystem::path scratch_root;
  // PyTorch with CUDA (the torch wheel of kforge's Python environment, core/torch_install.h):
  // CUDA baselines are PyTorch eager on the device through its C++ API. None: none installed.
  std::optional<core::TorchInstall> torch;
  std::string host_cxx = "g++";       // builds the baselines (host code); $KFORGE_CXX in the CLI
  std::chrono::seconds timeout{120};  // nvcc is several processes; a cold one takes ~15 s
  std::chrono::seconds baseline_timeout{900};
  // cicc and ptxas are larger than cc1plus: 8 GiB of address space (nvcc reserves much it never
  // touches), the same 64 MiB output limit for candidates.
  SandboxLimits candidate_limits{.output_bytes = 64ULL << 20, .address_space = 8ULL << 30};
  SandboxLimits trusted_limits{.output_bytes = 1ULL << 30, .address_space = 16ULL << 30};
  const std::atomic<bool>* cancel = nullptr;  // Ctrl-C: nvcc is killed, nothing is cached
};

class CudaCompiler : public Compiler {
 public:
  explicit CudaCompiler(CudaCompilerOptions options);
  CompileResult compile(const CompileRequest& request) override;
  std::string version() override;  // "Cuda compilation tools, release 13.0, V13.0.88"
  std::vector<std::string> flags_for(Role role) const override;

  const std::string& arch() const { return options_.arch; }
  const std::filesystem::path& cuda_home() const { return options_.cuda_home; }
  std::filesystem::path nvcc() const { return options_.cuda_home / "bin" / "nvcc"; }
  // Whether nvcc is installed where the options say.
  bool available() const;
  // The libraries each role may link (cudart for all; cuBLAS, cuBLASLt, cuDNN for experts and
  // baselines), and where to find them: what the link check holds the artifact to.
  LinkPolicy link_policy(Role role) const;

 private:
  std::string identity();
  std::vector<std::string> link_flags(Role role) const;
  CompileSandbox sandbox_for(Role role, const std::filesystem::path& scratch) const;

  CudaCompilerOptions options_;
  std::mutex mu_;
  std::string identity_, version_, include_digest_;
};

}  // namespace kforge::toolchain
