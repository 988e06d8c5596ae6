#pragma once
// The cpu target (cpp_target.cpp says what it is).

#include "kforge/targets/target.h"
#include "kforge/toolchain/cpp_compiler.h"

namespace kforge::target {

class CppTarget : public Target {
 public:
  std::string_view name() const override { return "cpp"; }
  std::string_view summary() const override {
    return "C++20 for CPUs (OpenMP, intrinsics), compiled by g++ to a shared object";
  }
  std::string kernel_extension() const override { return ".cpp"; }
  core::KernelAbi abi() const override;
  std::filesystem::path expert_path(const core::TaskSpec& spec) const override;
  std::filesystem::path baseline_path(const core::TaskSpec& spec) const override;
  std::unique_ptr<toolchain::Compiler> make_compiler(
      const ToolchainSettings& settings) const override;
  toolchain::LinkPolicy link_policy(const toolchain::Compiler& compiler,
                                    toolchain::Role role) const override;
  std::string unavailable_reason() const override { return {}; }
  eval::Evaluation evaluate(const eval::TaskContext& host, toolchain::Compiler& compiler,
                            const std::string& source, const std::string& file_name,
                            const eval::EvalOptions& options) const override;
  AgentMaterial agent_material() const override;
  // The host's own kernels: its roofline, its baseline timed alone, every peer and partner.
  bool roofline_applies() const override { return true; }
  bool baseline_timed_alone() const override { return true; }
  bool peers_apply() const override { return true; }
  bool accepts_partner(std::string_view) const override { return true; }
};

}  // namespace kforge::target
