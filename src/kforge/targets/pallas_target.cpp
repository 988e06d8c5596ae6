// The pallas target: one Python file defining kernel(*inputs) -> output or tuple, built with
// jax.experimental.pallas; shapes and params from the generated kforge_task.py. Its "compiler"
// is a static check (toolchain/pallas_compiler.h); its judge is eval::evaluate with the kernel
// run by the Python worker (framework "pallas": interpret mode forced on a CPU backend, refused
// without a pallas_call or with a host callback), checked on the same secret inputs against the
// same cached reference outputs as the C++ targets, and timed paired against the task's XLA port
// (workload.py under jax.jit), itself checked on every secret set.
#include "kforge/targets/pallas_target.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "kforge/core/dtype_tolerance.h"
#include "kforge/core/paths.h"
#include "kforge/core/python_env.h"
#include "kforge/core/task_python.h"
#include "kforge/eval/jax_backend.h"
#include "kforge/eval/machine_lock.h"
#include "kforge/eval/python_kernel.h"
#include "kforge/targets/pallas_gpu.h"
#include "kforge/toolchain/pallas_compiler.h"

namespace kforge::target {
namespace {

std::string shape_text(const core::ResolvedTensor& t) {
  return fmt::format("{}[{}]", core::dtype_name(t.dtype), fmt::join(t.shape, ", "));
}

}  // namespace

std::string PallasTarget::kernel_signature(const core::ResolvedTask& task) const {
  std::vector<std::string> ins, outs;
  for (const auto& t : task.inputs) ins.push_back(t.name);
  for (const auto& t : task.outputs) outs.push_back(t.name);
  std::string s =
      fmt::format("def kernel({}):  # -> {}", fmt::join(ins, ", "),
                  outs.size() == 1 ? outs.front() : fmt::format("({})", fmt::join(outs, ", ")));
  for (const auto& t : task.inputs)
    s += fmt::format("\n#   {}: {} (jax.Array)", t.name, shape_text(t));
  for (const auto& t : task.outputs)
    s += fmt::format("\n#   returns {}: {}", t.name, shape_text(t));
  return s;
}

std::string PallasTarget::task_header(const core::ResolvedTask& task) const {
  return core::task_python_module(task);
}

std::string PallasTarget::signature_block(const core::ResolvedTask& task) const {
  return fmt::format(
      "import kforge_task  # this size's shapes and params: kforge show {} --size {} --python\n"
      "from jax.experimental import pallas as pl\n{}\n"
      "#   (the body calls pl.pallas_call; a kernel in plain jax.numpy is refused. --dtype bf16:\n"
      "#   the f32 tensors arrive and are returned as bfloat16)",
      task.spec->id, task.size, kernel_signature(task));
}

std::filesystem::path pallas_expert_for(const std::filesystem::path& task_dir,
                                        std::string_view platform) {
  const bool gpu = platform == "cuda" || platform == "rocm" || platform == "gpu";
  if (gpu && std::filesystem::exists(task_dir / "expert_pallas_gpu.py"))
    return task_dir / "expert_pallas_gpu.py";
  return task_dir / "expert_pallas.py";
}

// The backend kforge decided for its JAX workers (eval/jax_backend.h) is the one the expert runs
// on.
std::filesystem::path PallasTarget::expert_path(const core::TaskSpec& spec) const {
  return pallas_expert_for(spec.dir, eval::this_jax_backend().platform);
}

std::filesystem::path PallasTarget::baseline_path(const core::TaskSpec& spec) const {
  return spec.dir / "workload.py";
}

std::unique_ptr<toolchain::Compiler> PallasTarget::make_compiler(const ToolchainSettings& s) const {
  toolchain::PallasCompilerOptions o;
  o.python = core::python_executable();
  o.venv = core::python_env_dir();
  o.checker = eval::python_worker_script().parent_path() / "kforge_pallas_check.py";
  o.cache_dir = s.cache_dir;
  o.cancel = s.cancel;
  return std::make_unique<toolchain::PallasCompiler>(o);
}

std::string PallasTarget::unavailable_reason() const {
  if (!std::filesystem::exists(core::python_executable()))
    return fmt::format(
        "no Python environment at {} (scripts/setup makes it; KFORGE_PYENV names "
        "another)",
        core::python_env_dir().string());
  if (!std::filesystem::exists(eval::python_worker_script()))
    return "the Python worker is missing (rebuild kforge)";
  return {};
}

void configure_pallas_evaluation(eval::EvalOptions& o, toolchain::Compiler& compiler) {
  o.kernel_compiler = &compiler;
  o.kernel_framework = "pallas";
  if (o.partner == eval::EvalOptions::Partner::baseline && o.peer.empty() &&
      o.against_source.empty())
    o.peer = "xla";
}

eval::Evaluation PallasTarget::evaluate(const eval::TaskContext& host,
                                        toolchain::Compiler& compiler, const std::string& source,
                                        const std::string& file_name,
                                        const eval::EvalOptions& options) const {
  eval::EvalOptions o = options;
  configure_pallas_evaluation(o, compiler);
  if (o.executor) {
    eval::Evaluation e;
    e.task_id = host.spec().id;
    e.size = host.task().size;
    e.reason = "the pallas target evaluates on this machine only (no --executor yet)";
    return e;
  }
  if (auto missing = unavailable_reason(); !missing.empty()) {
    eval::Evaluation e;
    e.task_id = host.spec().id;
    e.size = host.task().size;
    e.reason = "the pallas target cannot run here: " + missing;
    return e;
  }
  // On a GPU the GPU judge times the kernel alone on the device (pallas_gpu.h); elsewhere the
  // worker runs it under kforge-run's protocol (in interpret mode on a CPU).
  if (const auto& backend = eval::this_jax_backend(); pallas_on_gpu_judge(backend.platform))
    return evaluate_pallas_gpu(host, compiler, source, file_name, o, {backend});
  return eval::evaluate(host, source, file_name, o);
}

std::string PallasTarget::build_failure(const eval::TaskContext& host,
                                        toolchain::Compiler& compiler, const std::string& source,
                                        const std::string& file_name,
                                        const eval::EvalOptions& options) const {
  toolchain::CompileRequest req{
      toolchain::Role::candidate,
      source,
      file_name,
      core::task_python_module(core::at_dtype(host.task(), options.dtype), options.dtype),
      {}};
  auto shared = options.machine_lock ? options.machine_lock->share() : eval::MachineLock::Shared();
  return compile_failure(compiler.compile(req));
}

bool PallasTarget::accepts_partner(std::string_view partner) const {
  // Every peer: on a CPU under kforge-run's protocol beside the interpreted kernel (its times
  // are no performance figure either way), on a GPU on the device (pallas_gpu.h).
  return Target::accepts_partner(partner) || eval::is_peer(std::string(partner)) ||
         partner == "reference";
}

std::string PallasTarget::baseline_name(const eval::EvalOptions& options) const {
  return eval::peer_description(options.peer.empty() ? "xla" : options.peer);
}

// The backend, stated before any number: on a CPU the kernels run in Pallas's interpreter and
// their times and speedups are no performance figures.
std::string PallasTarget::run_header(const std::string& dtype) const {
  auto py = core::probe_python_env();
  const std::string platform = eval::jax_platform();
  return fmt::format("; target pallas, JAX {} on backend {} ({}), dtype {}{}",
                     py.jax_version.empty() ? "missing" : py.jax_version, platform,
                     eval::timing_basis_for(platform), dtype,
                     platform == "cpu"
                         ? ": kernels run in interpret mode, so times and speedups are not "
                           "performance figures; the verdicts are what this run decides"
                         : "");
}

AgentMaterial PallasTarget::agent_material() const {
  const auto root = core::source_dir();
  return {"JAX/Pallas (jax.experimental.pallas: pl.pallas_call, BlockSpec, grid), Python 3",
          root / "prompts" / "pallas", root / "knowledge" / "pallas",
          root / "strategies" / "pallas.toml", "python"};
}

}  // namespace kforge::target
