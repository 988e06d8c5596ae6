// The JAX backend of a Pallas kernel's process, probed from the venv and /dev.
#include "kforge/eval/jax_backend.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "kforge/core/python_env.h"
#include "kforge/runner/cuda_sandbox.h"

namespace kforge::eval {
namespace {

// The venv's site-packages folders (lib/python3.X/site-packages; lib64 on some distributions).
std::vector<std::filesystem::path> site_packages(const std::filesystem::path& venv) {
  std::vector<std::filesystem::path> out;
  std::error_code ec;
  for (const char* lib : {"lib", "lib64"})
    for (const auto& e : std::filesystem::directory_iterator(venv / lib, ec))
      if (e.path().filename().string().rfind("python", 0) == 0 &&
          std::filesystem::is_directory(e.path() / "site-packages"))
        out.push_back(e.path() / "site-packages");
  return out;
}

bool has_entry_starting(const std::filesystem::path& dir, const std::string& prefix) {
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    if (e.path().filename().string().rfind(prefix, 0) == 0) return true;
  return false;
}

// TPU chips: /dev/accel0.. (the TPU driver), and /dev/vfio/* on VMs that pass them through VFIO.
std::vector<std::filesystem::path> tpu_device_nodes(const std::filesystem::path& dev) {
  std::vector<std::filesystem::path> nodes;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dev, ec)) {
    const auto name = e.path().filename().string();
    if (name.size() > 5 && name.rfind("accel", 0) == 0 &&
        std::all_of(name.begin() + 5, name.end(), [](char c) { return c >= '0' && c <= '9'; }))
      nodes.push_back(e.path());
  }
  for (const auto& e : std::filesystem::directory_iterator(dev / "vfio", ec))
    nodes.push_back(e.path());
  std::sort(nodes.begin(), nodes.end());
  return nodes;
}

}  // namespace

JaxMachineFacts probe_jax_machine(const std::filesystem::path& venv,
                                  const std::filesystem::path& dev) {
  JaxMachineFacts f;
  for (const auto& site : site_packages(venv)) {
    f.cuda_plugin = f.cuda_plugin || has_entry_starting(site / "jax_plugins", "xla_cuda") ||
                    has_entry_starting(site, "jax_cuda");
    f.libtpu = f.libtpu || std::filesystem::exists(site / "libtpu");
  }
  f.nvidia_nodes = runner::nvidia_device_nodes(dev);
  f.tpu_nodes = tpu_device_nodes(dev);
  return f;
}

JaxBackend decide_jax_backend(const JaxMachineFacts& f) {
  // The control node alone is no device: a GPU needs nvidiactl and at least one /dev/nvidiaN.
  const bool gpu_present =
      std::any_of(f.nvidia_nodes.begin(), f.nvidia_nodes.end(),
                  [](const auto& p) { return p.filename() == "nvidiactl"; }) &&
      std::any_of(f.nvidia_nodes.begin(), f.nvidia_nodes.end(), [](const auto& p) {
        const auto n = p.filename().string();
        return n.size() > 6 && n.rfind("nvidia", 0) == 0 && std::isdigit(n[6]);
      });
  JaxBackend b;
  if (f.cuda_plugin && gpu_present) {
    b.platform = "cuda";
    b.timing_basis = "gpu";
    b.interpret = false;
    b.device_nodes = f.nvidia_nodes;
    b.why = "an NVIDIA GPU and JAX's CUDA plugin";
    return b;
  }
  if (f.libtpu && !f.tpu_nodes.empty()) {
    b.platform = "tpu";
    b.timing_basis = "tpu";
    b.interpret = false;
    b.device_nodes = f.tpu_nodes;
    b.why = "TPU chips and libtpu";
    return b;
  }
  if (gpu_present)
    b.why = "an NVIDIA GPU, but the venv has no JAX CUDA plugin (pip install jax[cuda12])";
  else if (f.cuda_plugin)
    b.why = "JAX's CUDA plugin, but no NVIDIA device";
  else if (!f.tpu_nodes.empty())
    b.why = "TPU chips, but the venv has no libtpu";
  else
    b.why = "no GPU or TPU";
  return b;
}

const JaxBackend& this_jax_backend() {
  static const JaxBackend b = decide_jax_backend(probe_jax_machine(core::python_env_dir()));
  return b;
}

}  // namespace kforge::eval
