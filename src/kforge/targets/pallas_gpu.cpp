// The pallas target's GPU route (pallas_gpu.h says what it is).
#include "kforge/targets/pallas_gpu.h"

#include <fmt/format.h>

#include <unistd.h>

#include "kforge/core/dtype_tolerance.h"
#include "kforge/core/fs.h"
#include "kforge/core/task_python.h"
#include "kforge/targets/cuda_process_device.h"
#include "kforge/targets/evaluate_gpu.h"

namespace kforge::target {
namespace {

eval::Evaluation refused(const eval::TaskContext& host, std::string reason) {
  eval::Evaluation e;
  e.task_id = host.spec().id;
  e.size = host.task().size;
  e.reason = std::move(reason);
  return e;
}

// A kernel.py (the candidate's or --against's checked artifact) in a folder of its own.
Result<eval::PythonKernel> placed_kernel(const std::filesystem::path& artifact,
                                         const std::filesystem::path& folder,
                                         const std::string& dtype) {
  std::error_code ec;
  std::filesystem::create_directories(folder, ec);
  std::filesystem::copy_file(artifact, folder / "kernel.py",
                             std::filesystem::copy_options::overwrite_existing, ec);
  if (ec)
    return Error{fmt::format("cannot place the kernel in {}: {}", folder.string(), ec.message())};
  return eval::PythonKernel{folder / "kernel.py", "kernel", "pallas", dtype};
}

}  // namespace

bool pallas_on_gpu_judge(std::string_view platform) {
  return platform == "cuda" || platform == "rocm" || platform == "gpu";
}

Result<std::unique_ptr<eval::GpuDevice>> start_jax_gpu_device(const eval::PythonKernel& kernel,
                                                              const core::ResolvedTask& task,
                                                              const std::filesystem::path& scratch,
                                                              const PallasGpuRoute& route,
                                                              const std::atomic<bool>* cancel) {
  std::error_code ec;
  std::filesystem::create_directories(scratch, ec);
  if (auto st = core::write_atomic(scratch / "kforge_task.py",
                                   core::task_python_module(task, kernel.dtype));
      !st)
    return st.error();
  // The kernel's environment and view as the CPU route gives them (the worker's scripts copied
  // into `scratch` for a Pallas kernel), on the route's backend.
  auto launch = eval::python_launch(kernel, scratch, 1, route.backend);
  if (!launch) return launch.error();
  const bool pallas = kernel.framework == "pallas";
  const auto script =
      (pallas ? scratch : eval::python_worker_script().parent_path()) / "kforge_pallas_device.py";
  eval::CudaProcessOptions o;
  o.trusted = !pallas;
  o.host_memory = route.host_memory;
  o.start_timeout_s = 900;  // XLA (and Triton) compile before the first reply
  o.cancel = cancel;
  o.library = scratch / "kforge_task.py";  // the process starts in its scratch folder
  o.command = {launch->argv[0],
               "-I",
               "-B",
               script.string(),
               "--module",
               kernel.module.string(),
               "--callable",
               kernel.callable,
               "--framework",
               kernel.framework,
               "--task-dir",
               scratch.string(),
               "--dtype",
               kernel.dtype};
  o.env = launch->env;
  // JAX takes 75% of the GPU at its start by default; the wire's buffers are torch's.
  o.env.push_back("XLA_PYTHON_CLIENT_PREALLOCATE=false");
  std::optional<core::LandlockRuleset> walls;
  if (pallas) {
    auto rules = core::LandlockRuleset::prepare(launch->view);
    if (!rules) return with_context(rules.error(), "the Pallas kernel's Landlock view");
    walls.emplace(std::move(*rules));
    o.landlock = &*walls;
  }
  auto device = eval::start_cuda_process_device(o);
  if (!device)
    return with_context(device.error(), pallas ? "starting the Pallas kernel on the device"
                                               : "starting XLA (jax.jit) on the device");
  return device;
}

eval::Evaluation evaluate_pallas_gpu(const eval::TaskContext& host, toolchain::Compiler& compiler,
                                     const std::string& source, const std::string& file_name,
                                     const eval::EvalOptions& options,
                                     const PallasGpuRoute& route) {
  if (options.dtype != "f32")
    return refused(host, fmt::format("--dtype {} on a GPU is not judged yet: the GPU judge checks "
                                     "at the task's f32 tolerance (--dtype f32 runs there)",
                                     options.dtype));
  if (options.partner == eval::EvalOptions::Partner::reference && options.peer.empty() &&
      options.against_source.empty())
    return refused(host,
                   "--partner reference on a GPU: the GPU judge pairs with XLA, a PyTorch peer or "
                   "an --against kernel (the C++ reference runs on the host only)");
  const auto& task = host.task();
  // Every device process's folder (its kforge_task.py, a Pallas kernel's view), removed at the
  // end.
  const auto scratch = host.state_dir() / "tmp" / fmt::format("pallas-gpu-{}", ::getpid());
  eval::GpuEvalSetup setup;
  setup.compiler = &compiler;
  setup.header = core::task_python_module(core::at_dtype(task, options.dtype), options.dtype);
  // No link_policy: a Python file links nothing; its imports were checked by its compiler.
  setup.device_missing = [] { return std::string{}; };
  int started = 0;
  setup.start_device = [&](const std::filesystem::path& artifact,
                           bool) -> Result<std::unique_ptr<eval::GpuDevice>> {
    auto kernel =
        placed_kernel(artifact, scratch / fmt::format("kernel-{}", started++), options.dtype);
    if (!kernel) return kernel.error();
    return start_jax_gpu_device(*kernel, task, kernel->module.parent_path(), route, options.cancel);
  };
  if (options.peer == "xla") {
    // XLA in the same device process as the kernel, with the same prelude and clock.
    setup.partner_name = "xla";
    setup.start_partner = [&]() -> Result<std::unique_ptr<eval::GpuDevice>> {
      auto port = eval::peer_kernel(host.spec(), "xla");
      if (!port) return port.error();
      port->dtype = options.dtype;
      return start_jax_gpu_device(*port, task, scratch / "xla", route, options.cancel);
    };
  } else if (!options.peer.empty()) {
    // A PyTorch peer as on the cuda target: kforge_cuda_worker.py on the same device.
    setup.partner_name = options.peer;
    setup.start_partner = [&]() {
      return eval::start_python_gpu_device(host.spec(), task, options.peer, scratch / options.peer,
                                           route.host_memory, options.cancel);
    };
  } else if (!options.against_source.empty()) {
    eval::partner_against(setup, options);
  }
  auto e = eval::evaluate_gpu(host, setup, source, file_name, options);
  e.timing_basis = route.host_memory ? "interpret (cpu)" : route.backend.timing_basis;
  std::error_code ec;
  std::filesystem::remove_all(scratch, ec);
  return e;
}

}  // namespace kforge::target
