// What every target shares unless it says otherwise: a C-ABI kernel's build check, the partner's
// name, and no device of its own.
#include "kforge/targets/target.h"

#include "kforge/eval/machine_lock.h"
#include "kforge/eval/python_kernel.h"
#include "kforge/toolchain/diagnostics.h"

namespace kforge::target {

std::string Target::compile_failure(const toolchain::CompileResult& r) {
  if (r.ok) return "";
  std::string errors = toolchain::format_errors(r.diagnostics, 8);
  return "the kernel does not compile:\n" + (errors.empty() ? r.log.substr(0, 3000) : errors);
}

std::string Target::build_failure(const eval::TaskContext& host, toolchain::Compiler& compiler,
                                  const std::string& source, const std::string& file_name,
                                  const eval::EvalOptions& options) const {
  toolchain::CompileRequest req{toolchain::Role::candidate, source, file_name,
                                task_header(host.task()), options.extra_flags};
  auto shared = options.machine_lock ? options.machine_lock->share() : eval::MachineLock::Shared();
  auto r = compiler.compile(req);
  if (!r.ok) return compile_failure(r);
  auto policy = link_policy(compiler, toolchain::Role::candidate);
  policy.extra_libs.insert(policy.extra_libs.end(), options.allow_libs.begin(),
                           options.allow_libs.end());
  auto link = toolchain::check_link(r.artifact, policy);
  if (!link.ok()) return "the kernel compiles but the link check refuses it: " + link.reason;
  return "";
}

std::string Target::baseline_name(const eval::EvalOptions& options) const {
  return options.peer.empty() ? "PyTorch eager, libtorch" : eval::peer_description(options.peer);
}

Result<eval::GpuProfile> Target::measure_device(const toolchain::Compiler&) const {
  return Error{std::string("the ") + std::string(name()) +
               " target's kernels run on the host: it has no device to measure"};
}

}  // namespace kforge::target
