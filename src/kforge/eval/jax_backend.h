#pragma once
// Which JAX backend a Pallas kernel (and its XLA baseline) runs on, decided by kforge from what
// the machine has, never by the kernel's process: a GPU when the venv has JAX's CUDA plugin and
// the machine has NVIDIA device nodes, a TPU when the venv has libtpu and the machine has TPU
// device nodes (/dev/accel*, or /dev/vfio for TPU VMs that pass the chips through VFIO), else
// the CPU. The decision sets JAX_PLATFORMS, the timing basis ("gpu" and "tpu" are performance;
// "interpret (cpu)" is not) and the device nodes the worker's Landlock view grants read-write:
// exactly those of the chosen backend, and none on the CPU.

#include <filesystem>
#include <string>
#include <vector>

namespace kforge::eval {

// What a look at the venv and /dev found (no JAX import: it is read on every evaluation).
struct JaxMachineFacts {
  bool cuda_plugin = false;  // jax_plugins/xla_cuda* or jax_cuda*_plugin in the venv
  bool libtpu = false;       // libtpu (the TPU runtime JAX loads) in the venv
  std::vector<std::filesystem::path> nvidia_nodes;  // /dev/nvidiactl, /dev/nvidia-uvm, /dev/nvidiaN
  std::vector<std::filesystem::path> tpu_nodes;     // /dev/accelN, /dev/vfio/*
};

struct JaxBackend {
  std::string platform = "cpu";                  // JAX_PLATFORMS: "cpu", "cuda" or "tpu"
  std::string timing_basis = "interpret (cpu)";  // "interpret (cpu)", "gpu" or "tpu"
  bool interpret = true;  // pallas_call runs in an interpret mode (the CPU backend only)
  std::vector<std::filesystem::path> device_nodes;  // read-write in the worker's view
  std::string why;  // one line: what was found, for `kforge hw` and `bench`'s header
};

JaxMachineFacts probe_jax_machine(const std::filesystem::path& venv,
                                  const std::filesystem::path& dev = "/dev");
// The decision table (jax_backend_test.cpp): a GPU first (plugin and nodes), then a TPU (libtpu
// and nodes), else the CPU; half of a pair (a plugin without a device, a device without the
// plugin) is the CPU, said in `why`.
JaxBackend decide_jax_backend(const JaxMachineFacts& facts);

// This machine's, probed once per process from the project's venv.
const JaxBackend& this_jax_backend();

}  // namespace kforge::eval
