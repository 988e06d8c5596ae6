// A target bound to a compiler, a dtype and a device; its judge's entry points.
#include "kforge/targets/bound_target.h"

namespace kforge::target {

BoundTarget::BoundTarget() : target_(&default_target()), dtype_("f32") {}

BoundTarget::BoundTarget(const Target& target, std::shared_ptr<toolchain::Compiler> compiler,
                         std::string dtype)
    : target_(&target), compiler_(std::move(compiler)), dtype_(std::move(dtype)) {}

BoundTarget bind(const Target& target, const ToolchainSettings& settings,
                 const std::string& dtype) {
  return BoundTarget(target, target.make_compiler(settings), dtype);
}

toolchain::Compiler& BoundTarget::compiler(const eval::TaskContext& host) const {
  return compiler_ ? *compiler_ : host.compiler();
}

void BoundTarget::find_device(eval::MachineLock& lock) {
  if (!target_->agent_material().gpu || !compiler_) return;
  auto exclusive = lock.measure();
  auto p = target_->measure_device(*compiler_);
  if (p)
    device_ = std::make_shared<const eval::GpuProfile>(std::move(*p));
  else
    device_missing_ = p.error().message;
}

std::string BoundTarget::arch() const {
  if (device_) return device_->device.arch();
  return compiler_ ? target_->arch(*compiler_) : "";
}

eval::Evaluation BoundTarget::evaluate(const eval::TaskContext& host, const std::string& source,
                                       const std::string& file_name,
                                       const eval::EvalOptions& options) const {
  return target_->evaluate(host, compiler(host), source, file_name, options);
}

eval::PairedDecision BoundTarget::decide_paired(const eval::TaskContext& host,
                                                const std::string& challenger,
                                                const std::string& incumbent,
                                                const std::string& incumbent_label,
                                                const eval::EvalOptions& options) const {
  return eval::decide_paired(
      [&](const std::string& source, const eval::EvalOptions& o) {
        return evaluate(host, source, kernel_file(), o);
      },
      challenger, incumbent, incumbent_label, options);
}

std::string BoundTarget::build_failure(const eval::TaskContext& host, const std::string& source,
                                       const eval::EvalOptions& options) const {
  return target_->build_failure(host, compiler(host), source, kernel_file(), options);
}

toolchain::CompileResult BoundTarget::compile(const eval::TaskContext& host,
                                              const std::string& source,
                                              toolchain::Role role) const {
  return compiler(host).compile(
      {role, source, kernel_file(), target_->task_header(host.task()), {}});
}

}  // namespace kforge::target
