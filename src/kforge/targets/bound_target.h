#pragma once
// A target bound to one command's choices: the target, the compiler its kernels are built with,
// the dtype they compute in, and the device they run on (a GPU target's, measured). The modes,
// the tuner and the commands judge kernels through it and ask it what they need to know; none of
// them asks which target it is. It is a small value: copies share the compiler and the device.

#include <memory>
#include <string>

#include "kforge/eval/evaluate.h"
#include "kforge/eval/gpu_profile.h"
#include "kforge/eval/machine_lock.h"
#include "kforge/eval/paired_decision.h"
#include "kforge/eval/task_context.h"
#include "kforge/targets/target.h"

namespace kforge::target {

class BoundTarget {
 public:
  // The cpp target, its kernels built by the task context's own (host) compiler: what a mode runs
  // on when a test binds nothing.
  BoundTarget();
  BoundTarget(const Target& target, std::shared_ptr<toolchain::Compiler> compiler,
              std::string dtype = "f32");

  const Target& target() const { return *target_; }
  const std::string& dtype() const { return dtype_; }
  // The compiler kernels are built with: the bound one, else the host's (`host`'s).
  toolchain::Compiler& compiler(const eval::TaskContext& host) const;
  // The bound compiler, or null when kernels take the task context's.
  toolchain::Compiler* bound_compiler() const { return compiler_.get(); }
  std::string kernel_file() const { return target_->kernel_file_name(); }  // kernel.cpp, .cu, .py
  std::string best_file() const { return "best" + target_->kernel_extension(); }

  // The device: measured (from the per-user cache after the first time, with the machine to
  // itself: `lock`) for a target that has one; else the reason is kept for the agents.
  void find_device(eval::MachineLock& lock);
  void set_device(eval::GpuProfile device) {
    device_ = std::make_shared<const eval::GpuProfile>(std::move(device));
  }
  void set_device_missing(std::string why) { device_missing_ = std::move(why); }
  const eval::GpuProfile* device() const { return device_.get(); }
  const std::string& device_missing() const { return device_missing_; }
  std::string arch() const;  // what kernels are compiled for ("sm_90"); "" for the host's

  // The judge: check and time `source` (a failing kernel is a verdict).
  eval::Evaluation evaluate(const eval::TaskContext& host, const std::string& source,
                            const std::string& file_name, const eval::EvalOptions& options) const;
  // `challenger` against `incumbent` side by side in one run, on this target's judge.
  eval::PairedDecision decide_paired(const eval::TaskContext& host, const std::string& challenger,
                                     const std::string& incumbent,
                                     const std::string& incumbent_label,
                                     const eval::EvalOptions& options) const;
  // Why `source` does not build; "" when it builds.
  std::string build_failure(const eval::TaskContext& host, const std::string& source,
                            const eval::EvalOptions& options) const;
  // Builds `source` as `role` with the target's header (the tuner warms the artifact cache).
  toolchain::CompileResult compile(const eval::TaskContext& host, const std::string& source,
                                   toolchain::Role role) const;

 private:
  const Target* target_;
  std::shared_ptr<toolchain::Compiler> compiler_;
  std::string dtype_;
  std::shared_ptr<const eval::GpuProfile> device_;
  std::string device_missing_;
};

// The target named `name` bound to its own compiler (Target::make_compiler) and `dtype`.
BoundTarget bind(const Target& target, const ToolchainSettings& settings,
                 const std::string& dtype = "f32");

}  // namespace kforge::target
