// The modes' one door to a target's compiler and judge.
#include "kforge/modes/kernel_judge.h"

#include "kforge/core/dtype_tolerance.h"
#include "kforge/core/task_python.h"
#include "kforge/toolchain/link_check.h"

namespace kforge::modes {

bool KernelJudge::host_target() const {
  return target == nullptr || target->name() == target::default_target().name();
}

bool KernelJudge::python_kernel() const {
  return !host_target() && target->kernel_extension() == ".py";
}

std::string KernelJudge::kernel_file() const {
  return host_target() ? "kernel.cpp" : target->kernel_file_name();
}

std::string KernelJudge::best_file() const {
  return "best" + (host_target() ? std::string(".cpp") : target->kernel_extension());
}

eval::Evaluation KernelJudge::evaluate(const eval::TaskContext& ctx, const std::string& source,
                                       const std::string& file_name,
                                       const eval::EvalOptions& options) const {
  if (host_target() || compiler == nullptr) return eval::evaluate(ctx, source, file_name, options);
  return target->evaluate(ctx, *compiler, source, file_name, options);
}

eval::PairedDecision KernelJudge::decide_paired(const eval::TaskContext& ctx,
                                                const std::string& challenger,
                                                const std::string& incumbent,
                                                const std::string& incumbent_label,
                                                const eval::EvalOptions& options) const {
  return eval::decide_paired(
      [&](const std::string& source, const eval::EvalOptions& o) {
        return evaluate(ctx, source, kernel_file(), o);
      },
      challenger, incumbent, incumbent_label, options);
}

std::string KernelJudge::build_failure(const eval::TaskContext& ctx, const std::string& source,
                                       const eval::EvalOptions& options) const {
  toolchain::CompileRequest req{toolchain::Role::candidate, source, kernel_file(), ctx.header(),
                                options.extra_flags};
  const bool own = !host_target() && compiler != nullptr;
  if (python_kernel())
    req.task_header =
        core::task_python_module(core::at_dtype(ctx.task(), options.dtype), options.dtype);
  else if (own)
    req.task_header = target->task_header(ctx.task());
  auto shared = options.machine_lock ? options.machine_lock->share() : eval::MachineLock::Shared();
  auto r = own ? compiler->compile(req) : ctx.compiler().compile(req);
  if (!r.ok) {
    std::string errors = toolchain::format_errors(r.diagnostics, 8);
    return "the kernel does not compile:\n" + (errors.empty() ? r.log.substr(0, 3000) : errors);
  }
  // A Python kernel links nothing: its imports were checked by its compiler.
  if (python_kernel()) return "";
  toolchain::LinkPolicy policy{options.allow_libs};
  if (own) {
    policy = target->link_policy(*compiler, toolchain::Role::candidate);
    policy.extra_libs.insert(policy.extra_libs.end(), options.allow_libs.begin(),
                             options.allow_libs.end());
  }
  auto link = toolchain::check_link(r.artifact, policy);
  if (!link.ok()) return "the kernel compiles but the link check refuses it: " + link.reason;
  return "";
}

}  // namespace kforge::modes
