#pragma once
// The cuda target (cuda_target.cpp says what it is).

#include <optional>

#include "kforge/core/torch_install.h"
#include "kforge/targets/target.h"

namespace kforge::target {

class CudaTarget : public Target {
 public:
  std::string_view name() const override { return "cuda"; }
  std::string_view summary() const override {
    return "CUDA C++ for NVIDIA GPUs, compiled by nvcc; an extern \"C\" host entry launches the "
           "kernels on the given stream";
  }
  std::string kernel_extension() const override { return ".cu"; }
  core::KernelAbi abi() const override;
  std::filesystem::path expert_path(const core::TaskSpec& spec) const override;
  std::filesystem::path baseline_path(const core::TaskSpec& spec) const override;
  std::unique_ptr<toolchain::Compiler> make_compiler(
      const ToolchainSettings& settings) const override;
  toolchain::LinkPolicy link_policy(const toolchain::Compiler& compiler,
                                    toolchain::Role role) const override;
  std::string unavailable_reason() const override;
  // The baseline, or a peer (torch, torch-compile, torch-compile-max, xla) run on the same GPU.
  bool accepts_partner(std::string_view partner) const override;
  eval::Evaluation evaluate(const eval::TaskContext& host, toolchain::Compiler& compiler,
                            const std::string& source, const std::string& file_name,
                            const eval::EvalOptions& options) const override;
  AgentMaterial agent_material() const override;
  std::string arch(const toolchain::Compiler& compiler) const override;
  Result<eval::GpuProfile> measure_device(const toolchain::Compiler& compiler) const override;
};

// The torch wheel of kforge's Python environment when it has CUDA (core/torch_install.h).
std::optional<core::TorchInstall> wheel_torch_with_cuda();

// The architecture to compile for: `configured` when set, else the first device's, else sm_90.
std::string cuda_arch(const std::string& configured);

}  // namespace kforge::target
