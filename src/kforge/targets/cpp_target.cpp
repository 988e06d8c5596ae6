// The cpu target: C++20 with OpenMP and intrinsics, g++ (or clang) to a shared object, judged by
// eval::evaluate in sandboxed kernel processes.
#include "kforge/targets/cpp_target.h"

#include "kforge/core/paths.h"
#include "kforge/toolchain/cpp_compiler.h"

namespace kforge::target {

core::KernelAbi CppTarget::abi() const { return {}; }

std::filesystem::path CppTarget::expert_path(const core::TaskSpec& spec) const {
  return spec.expert_path();
}

std::filesystem::path CppTarget::baseline_path(const core::TaskSpec& spec) const {
  return spec.baseline_path();
}

std::unique_ptr<toolchain::Compiler> CppTarget::make_compiler(const ToolchainSettings& s) const {
  return make_cpp_compiler(s);
}

std::unique_ptr<toolchain::CppCompiler> make_cpp_compiler(const ToolchainSettings& s) {
  toolchain::CppCompilerOptions o;
  o.cache_dir = s.cache_dir;
  o.include_dir = s.include_dir;
  o.cxx = s.cxx;
  o.toolchain_dirs = s.toolchain_dirs;
  o.cancel = s.cancel;
  return std::make_unique<toolchain::CppCompiler>(o);
}

toolchain::LinkPolicy CppTarget::link_policy(const toolchain::Compiler&,
                                             toolchain::Role role) const {
  toolchain::LinkPolicy p;
  if (role == toolchain::Role::expert) p.extra_libs = {"dnnl", "openblas"};
  return p;
}

eval::Evaluation CppTarget::evaluate(const eval::TaskContext& host, toolchain::Compiler&,
                                     const std::string& source, const std::string& file_name,
                                     const eval::EvalOptions& options) const {
  return eval::evaluate(host, source, file_name, options);
}

AgentMaterial CppTarget::agent_material() const {
  const auto root = core::source_dir();
  return {"C++20 with OpenMP and x86 SIMD intrinsics (g++)", root / "prompts", root / "knowledge",
          root / "strategies" / "cpu.toml"};
}

}  // namespace kforge::target
