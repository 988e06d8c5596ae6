#pragma once
// The pallas target (pallas_target.cpp says what it is).

#include "kforge/targets/target.h"

namespace kforge::target {

class PallasTarget : public Target {
 public:
  std::string_view name() const override { return "pallas"; }
  std::string_view summary() const override {
    return "JAX/Pallas kernels (kernel.py: pl.pallas_call with BlockSpecs and a grid) for TPUs "
           "and GPUs; checked in interpret mode on a CPU, timed against XLA (jax.jit) or a peer; "
           "on a GPU judged on the device like the cuda target's";
  }
  std::string kernel_extension() const override { return ".py"; }
  core::KernelAbi abi() const override { return {}; }
  std::string kernel_signature(const core::ResolvedTask& task) const override;
  std::string task_header(const core::ResolvedTask& task) const override;
  std::string signature_block(const core::ResolvedTask& task) const override;
  std::filesystem::path expert_path(const core::TaskSpec& spec) const override;
  std::filesystem::path baseline_path(const core::TaskSpec& spec) const override;
  std::unique_ptr<toolchain::Compiler> make_compiler(
      const ToolchainSettings& settings) const override;
  toolchain::LinkPolicy link_policy(const toolchain::Compiler&, toolchain::Role) const override {
    return {};
  }
  std::string unavailable_reason() const override;
  eval::Evaluation evaluate(const eval::TaskContext& host, toolchain::Compiler& compiler,
                            const std::string& source, const std::string& file_name,
                            const eval::EvalOptions& options) const override;
  AgentMaterial agent_material() const override;
  // A Python file: checked against the dtype's kforge_task.py, with nothing to link.
  std::string build_failure(const eval::TaskContext& host, toolchain::Compiler& compiler,
                            const std::string& source, const std::string& file_name,
                            const eval::EvalOptions& options) const override;
  // XLA (its baseline) pairs its kernels, or any peer (PyTorch eager, torch.compile), or the C++
  // reference (on a CPU); it computes in f32 or bf16 (f32 only on a GPU: pallas_gpu.h).
  bool accepts_partner(std::string_view partner) const override;
  bool accepts_dtype(std::string_view) const override { return true; }
  std::string baseline_name(const eval::EvalOptions& options) const override;
  std::string untunable_reason() const override {
    return "the tuner sets -D tunables of C-ABI kernels, and a pallas kernel is a Python file";
  }
  bool baseline_is_kernel() const override { return false; }  // workload.py is XLA's
  std::string run_header(const std::string& dtype) const override;
};

// The Pallas expert of the task in `task_dir` for the JAX platform the worker runs on ("cpu",
// "cuda", "rocm", "tpu"): on a GPU, expert_pallas_gpu.py where the task has one (written for the
// Triton lowering, which has no TPU scratch and takes power-of-two blocks only); everywhere else,
// and on a GPU where the task has no GPU kernel, expert_pallas.py (written for the TPU, run in
// interpret mode on a CPU).
std::filesystem::path pallas_expert_for(const std::filesystem::path& task_dir,
                                        std::string_view platform);

// What eval::evaluate needs to judge a Pallas kernel: its compiler (the Python checker), the
// worker's "pallas" framework, and the XLA baseline (the task's workload.py under jax.jit) as the
// partner unless a peer, the reference or an --against kernel was asked for.
void configure_pallas_evaluation(eval::EvalOptions& options, toolchain::Compiler& compiler);

}  // namespace kforge::target
