#pragma once
// A Python implementation of a task run as a kernel process: the project's venv runs
// kforge_worker.py (runner/python/), which speaks kforge-run's protocol, so the parent times,
// snapshots and compares its calls exactly as it does a C++ kernel's. The peers (PyTorch eager,
// torch.compile, XLA) are such kernels; the worker is generic: any module, function and framework.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "kforge/core/landlock.h"
#include "kforge/core/result.h"
#include "kforge/core/task_spec.h"

namespace kforge::eval {

// torch: eager PyTorch; torch-compile / torch-compile-max: Inductor in its default and
// max-autotune modes; jax: jax.jit (XLA); pallas: jax.jit of an untrusted Pallas kernel
// (kforge_pallas.py: interpret mode forced on a CPU backend, traced and refused when it has no
// pallas_call or calls back to the host).
struct PythonKernel {
  std::filesystem::path module;  // the .py file
  std::string callable;          // the function in it: inputs in ABI order, outputs returned
  std::string framework;
  std::string dtype = "f32";  // jax, pallas: "bf16" casts the f32 inputs (and outputs) on the way
};

struct JaxBackend;

// The JAX backend a Python kernel process gets (JAX_PLATFORMS: "cpu", "cuda" or "tpu"; see
// jax_backend.h): kforge decides it, so what a timing is worth ("interpret (cpu)" or a device's)
// never rests on what the process claims.
std::string jax_platform();
// "interpret (cpu)" on a CPU backend (no kernel performance), else the device ("gpu", "tpu").
std::string timing_basis_for(const std::string& platform);

// The worker script installed beside kforge-run ($KFORGE_BIN_DIR overrides, as for kforge-run).
std::filesystem::path python_worker_script();
// The Python environment's interpreter, or an error saying the environment is missing and how to
// make or name one.
Result<std::filesystem::path> python_interpreter();

// How to start one: the interpreter and the script, the environment (threads pinned for OpenMP,
// PyTorch and XLA alike; temporary files in `scratch`, Inductor's cache in the per-user cache), and
// the Landlock view (the venv, the system's files, the module's folder, `scratch` and the cache
// writable; no TCP). A pallas kernel sees less: the worker's scripts are copied into `scratch`
// (which holds its module and kforge_task.py), and neither kforge's folders nor the cache are in
// its view.
struct PythonLaunch {
  std::vector<std::string> argv;
  std::vector<std::string> env;
  core::LandlockView view;
};
Result<PythonLaunch> python_launch(const PythonKernel& kernel, const std::filesystem::path& scratch,
                                   int threads);
// The same on a given backend (tests: the view and environment a GPU or TPU backend gets).
Result<PythonLaunch> python_launch(const PythonKernel& kernel, const std::filesystem::path& scratch,
                                   int threads, const JaxBackend& backend);
// The backend's device nodes read-write (ioctl included) and what its runtime reads in /sys and
// /proc; nothing on the CPU backend.
void grant_backend_devices(core::LandlockView& view, const JaxBackend& backend);

// The environment that makes JAX keep every compile, however short, in `dir` (XLA's persistent
// compilation cache): for trusted code only (python_launch), and the tests' port checks.
std::vector<std::string> xla_compile_cache_env(const std::filesystem::path& dir);

// The peers a user would pick instead of a generated kernel, by --partner name.
inline constexpr const char* kPeerNames[] = {"torch", "torch-compile", "torch-compile-max", "xla"};
bool is_peer(const std::string& name);
// "XLA (jax.jit)", "torch.compile (Inductor, max-autotune)", ...: how the agents are told.
std::string peer_description(const std::string& name);

// The task's port for peer `name`: workload.py's workload() for xla; baseline.py's library()
// where the port has one (the fused call a PyTorch user would make: F.rms_norm,
// scaled_dot_product_attention), else its op-by-op baseline(), for the torch peers. An error
// names the missing file or function.
Result<PythonKernel> peer_kernel(const core::TaskSpec& spec, const std::string& name);

}  // namespace kforge::eval
