#pragma once
// The pallas target on a GPU: its kernels judged by the GPU judge (evaluate_gpu.h), as the cuda
// target's are. The kernel is a device process (kforge_pallas_device.py: the kernel under jax.jit
// on device buffers, behind the worker's walls and a Landlock view), and so is its partner: XLA
// (the task's workload.py, the same process with framework "jax"), a PyTorch peer
// (kforge_cuda_worker.py, as on the cuda target), or an --against kernel.py. Timed batches keep
// the inputs on the device and make them fresh there, flush L2 and time the call alone: no copy
// between host and device is in a timed call, for the kernel and its partner alike.

#include <atomic>
#include <filesystem>
#include <memory>
#include <string>

#include "kforge/core/result.h"
#include "kforge/eval/evaluate.h"
#include "kforge/eval/jax_backend.h"
#include "kforge/eval/python_kernel.h"
#include "kforge/targets/gpu_device.h"

namespace kforge::target {

struct PallasGpuRoute {
  eval::JaxBackend backend;  // the device processes' JAX backend (this machine's: a GPU)
  // Tests: host buffers and JAX's CPU backend (kforge_cuda_worker.py's --host-memory), so the
  // whole route runs without a GPU; its times are then an interpreter's.
  bool host_memory = false;
};

// Whether the pallas target sends evaluations on this JAX platform to the GPU judge.
bool pallas_on_gpu_judge(std::string_view platform);

// A JAX function (framework "pallas": an untrusted Pallas kernel inside its Landlock view; "jax":
// XLA's port, trusted) as a device process speaking the device runner's wire, with this size's
// kforge_task.py and the worker's scripts in `scratch` (its own folder).
Result<std::unique_ptr<eval::GpuDevice>> start_jax_gpu_device(
    const eval::PythonKernel& kernel, const core::ResolvedTask& task,
    const std::filesystem::path& scratch, const PallasGpuRoute& route,
    const std::atomic<bool>* cancel = nullptr);

// The evaluation of kernel.py `source` by the GPU judge, with the partner `options` name (the
// pallas target has set the xla peer for the baseline). --dtype bf16 is refused here (the GPU
// judge checks at the task's f32 tolerance), as is --partner reference (the GPU judge has no
// reference partner).
eval::Evaluation evaluate_pallas_gpu(const eval::TaskContext& host, toolchain::Compiler& compiler,
                                     const std::string& source, const std::string& file_name,
                                     const eval::EvalOptions& options, const PallasGpuRoute& route);

}  // namespace kforge::target
