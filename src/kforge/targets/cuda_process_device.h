#pragma once
// The real GpuDevice: a kforge-run-cuda process holding the kernel's library and its buffers
// (its own process group, a clean environment, no descriptor of kforge's but its channel, a
// parent-death signal). Each request waits for its reply at most as long as the judge allows;
// a call that overruns is killed with its whole process group (the watchdog) and reads `hung`.

#include <atomic>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "kforge/core/landlock.h"
#include "kforge/core/task_resolve.h"
#include "kforge/core/task_spec.h"
#include "kforge/targets/gpu_device.h"

namespace kforge::eval {

struct CudaProcessOptions {
  std::filesystem::path library;  // the compiled kernel (kernel.so)
  bool trusted = false;           // an expert or baseline (may load cuBLAS, cuDNN, libtorch)
  std::filesystem::path state_dir;
  std::size_t memory_bytes = 0;  // host address-space limit for an untrusted kernel; 0: none
  bool host_memory = false;      // tests: host buffers, no device (kforge-run-cuda --host-memory)
  double start_timeout_s = 120;  // the driver's first context creation can take seconds
  // A program the runner runs under (compute-sanitizer and its options); empty: none.
  std::vector<std::string> wrapper;
  // Another program speaking the same wire in place of kforge-run-cuda and `library` (a peer:
  // kforge_cuda_worker.py under the Python environment), with these variables added.
  std::vector<std::string> command;
  std::vector<std::string> env;
  // Applied in the child just before exec (an untrusted Python device process: the pallas
  // target's kernel on a GPU); null: no Landlock view (kforge-run-cuda walls itself).
  const core::LandlockRuleset* landlock = nullptr;
  // Ctrl-C: a request waiting for its reply kills the process within 50 ms and fails.
  const std::atomic<bool>* cancel = nullptr;
};

Result<std::unique_ptr<GpuDevice>> start_cuda_process_device(const CudaProcessOptions& options);

// A peer (torch, torch-compile, torch-compile-max, xla: python_kernel.h) as a device process:
// kforge_cuda_worker.py in the Python environment, serving the port's function on the GPU (its
// buffers torch tensors), with this size's kforge_task.py written into `scratch`. Its first reply
// comes after the compile and warm-up, so it may take minutes.
Result<std::unique_ptr<GpuDevice>> start_python_gpu_device(
    const core::TaskSpec& spec, const core::ResolvedTask& task, const std::string& peer,
    const std::filesystem::path& scratch, bool host_memory = false,
    const std::atomic<bool>* cancel = nullptr);

// compute-sanitizer of the toolkit at `cuda_home`, or empty when it is not installed.
std::filesystem::path find_compute_sanitizer(const std::filesystem::path& cuda_home);
// The options that run `tool` (memcheck, racecheck) with a non-zero exit on any error.
std::vector<std::string> sanitizer_wrapper(const std::filesystem::path& sanitizer,
                                           const std::string& tool);
// Nsight Compute's command line of the toolkit at `cuda_home`, or empty when it is not installed.
std::filesystem::path find_ncu(const std::filesystem::path& cuda_home);
// What the runner printed under a tool is read by sanitizer_report.h.

}  // namespace kforge::eval
