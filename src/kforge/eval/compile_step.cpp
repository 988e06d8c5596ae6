// A kernel that does not compile, or links what it may not, ends here.
#include <fmt/format.h>

#include "kforge/eval/steps.h"

namespace kforge::eval {

std::optional<Judgement> judge_compile(const toolchain::CompileResult& compile) {
  if (compile.ok) return std::nullopt;
  if (compile.timed_out)
    return Judgement{Verdict::compile_error, compile.log.substr(0, compile.log.find('\n'))};
  std::string errors = toolchain::format_errors(compile.diagnostics, 5);
  if (errors.empty()) errors = compile.log.substr(0, 2000);
  int n = toolchain::count_errors(compile.diagnostics);
  return Judgement{Verdict::compile_error,
                   fmt::format("{} compile error{}:\n{}", n, n == 1 ? "" : "s", errors)};
}

std::optional<Judgement> judge_link(const toolchain::CompileResult& compile, toolchain::Role role,
                                    const std::vector<std::string>& allow_libs) {
  // The task's own reference and baseline are trusted as they are; experts are held to the
  // candidate's rules plus oneDNN and OpenBLAS, so no expert quietly calls libtorch.
  if (role == toolchain::Role::baseline || role == toolchain::Role::reference ||
      role == toolchain::Role::generator)
    return std::nullopt;
  toolchain::LinkPolicy policy{allow_libs};
  if (role == toolchain::Role::expert)
    policy.extra_libs.insert(policy.extra_libs.end(), {"dnnl", "openblas"});
  auto link = toolchain::check_link(compile.artifact, policy);
  if (link.ok()) return std::nullopt;
  if (link.problem == toolchain::LinkProblem::missing_entry)
    return Judgement{Verdict::compile_error, link.reason};
  return Judgement{Verdict::link_refused, link.reason};
}

}  // namespace kforge::eval
