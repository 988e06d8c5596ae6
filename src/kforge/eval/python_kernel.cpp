// The launch of a Python kernel process and the peers' ports.
#include "kforge/eval/python_kernel.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>

#include "kforge/core/paths.h"
#include "kforge/core/python_env.h"
#include "kforge/eval/jax_backend.h"
#include "kforge/eval/runner_process.h"

namespace kforge::eval {
namespace {

std::filesystem::path canonical_or_self(const std::filesystem::path& p) {
  std::error_code ec;
  auto c = std::filesystem::canonical(p, ec);
  return ec ? p : c;
}

// The system's files and the venv, read-only: what every Python kernel process reads.
std::vector<std::filesystem::path> system_dirs() {
  return {"/usr",
          "/lib",
          "/lib64",
          "/bin",
          "/proc",
          "/sys/devices/system/cpu",
          "/sys/devices/system/node",
          "/sys/fs/cgroup",
          canonical_or_self(core::python_env_dir())};
}

std::vector<std::filesystem::path> system_files() {
  return {"/etc/ld.so.cache",   "/etc/passwd",    "/etc/group",
          "/etc/nsswitch.conf", "/etc/localtime", "/dev/urandom"};
}

// A Pallas candidate's view: the system, the venv and its own scratch folder (its module,
// kforge_task.py, the worker's scripts). Not the task's folder (workload.py, the reference), not
// kforge's build or source tree, not the per-user cache.
core::LandlockView pallas_view(const std::filesystem::path& scratch, const JaxBackend& backend) {
  core::LandlockView v;
  v.read_dirs = system_dirs();
  v.read_dirs.push_back(scratch);
  v.read_files = system_files();
  v.write_dirs = {scratch};
  v.write_files = {"/dev/null"};
  grant_backend_devices(v, backend);
  return v;
}

// What a Python process needs to start, import NumPy, PyTorch and JAX, and (torch.compile) run
// the C++ compiler: the system's libraries and tools read-only, the CPU description, its own /proc
// (Landlock refuses /proc of processes outside the sandbox, kforge's included), a few files of
// /etc (the loader's cache; the user database that getpass reads).
core::LandlockView python_view(const PythonKernel& kernel, const std::filesystem::path& scratch,
                               const std::filesystem::path& cache, const JaxBackend& backend) {
  if (kernel.framework == "pallas") return pallas_view(scratch, backend);
  core::LandlockView v;
  v.read_dirs = system_dirs();
  v.read_dirs.insert(v.read_dirs.end(),
                     {canonical_or_self(kernel.module).parent_path(),
                      canonical_or_self(python_worker_script()).parent_path(),
                      scratch,  // read and execute too: Inductor loads the code it compiled there
                      cache});
  v.read_files = system_files();
  v.write_dirs = {scratch, cache};
  v.write_files = {"/dev/null"};
  // XLA (the pallas target's baseline) runs on the same backend as the kernel it is paired with.
  if (kernel.framework == "jax") grant_backend_devices(v, backend);
  return v;
}

bool defines(const std::filesystem::path& file, const std::string& function) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  return std::regex_search(text.str(), std::regex("(^|\\n)def " + function + "\\("));
}

}  // namespace

void grant_backend_devices(core::LandlockView& v, const JaxBackend& backend) {
  if (backend.platform == "cuda")
    // What the driver reads about the GPU (as the cuda runner's view: cuda_sandbox.cpp).
    v.read_dirs.insert(v.read_dirs.end(), {"/proc/driver/nvidia", "/sys/bus/pci/devices",
                                           "/sys/devices", "/dev/nvidia-caps"});
  else if (backend.platform == "tpu")
    v.read_dirs.insert(v.read_dirs.end(),
                       {"/sys/bus/pci/devices", "/sys/devices", "/sys/class/accel"});
  // Read-write (the runtime's ioctls go there): exactly the chosen backend's nodes.
  v.write_files.insert(v.write_files.end(), backend.device_nodes.begin(),
                       backend.device_nodes.end());
}

std::filesystem::path python_worker_script() {
  return runner_executable().parent_path() / "kforge_worker.py";
}

Result<std::filesystem::path> python_interpreter() {
  auto python = core::python_executable();
  if (!std::filesystem::exists(python))
    return Error{
        fmt::format("the Python environment {} is missing (scripts/setup makes it; "
                    "KFORGE_PYENV names another)",
                    core::python_env_dir().string())};
  return python;
}

Result<PythonLaunch> python_launch(const PythonKernel& kernel, const std::filesystem::path& scratch,
                                   int threads) {
  return python_launch(kernel, scratch, threads, this_jax_backend());
}

Result<PythonLaunch> python_launch(const PythonKernel& kernel, const std::filesystem::path& scratch,
                                   int threads, const JaxBackend& backend) {
  auto python = python_interpreter();
  if (!python) return python.error();
  auto worker = python_worker_script();
  if (!std::filesystem::exists(worker))
    return Error{fmt::format("the Python worker {} is missing (rebuild kforge)", worker.string())};
  // Inductor's and XLA's compiled code is kept per user and machine: a task compiled once
  // (minutes of C++ compiles on a busy machine, seconds of XLA) is a cache hit in every later
  // evaluation. Only trusted code (the peers, XLA's baseline) may read or write it: a Pallas
  // candidate that could write a cache entry could hand its own code to the next XLA baseline.
  const auto cache = core::user_cache_dir() / "python";
  std::error_code ec;
  for (const char* dir : {"inductor", "jax"})
    if (std::filesystem::create_directories(cache / dir, ec); ec)
      return Error{
          fmt::format("cannot make the Python cache {}: {}", (cache / dir).string(), ec.message())};
  PythonLaunch l;
  if (kernel.framework == "pallas") {
    // The kernel may read its own scratch folder only: the worker runs from a copy there (with
    // the device worker's scripts, which the pallas target's GPU route starts instead).
    for (const char* script : {"kforge_worker.py", "kforge_pallas.py", "kforge_cuda_worker.py",
                               "kforge_pallas_device.py"}) {
      std::filesystem::copy_file(worker.parent_path() / script, scratch / script,
                                 std::filesystem::copy_options::overwrite_existing, ec);
      if (ec)
        return Error{fmt::format("cannot copy the Python worker's {} into {}: {}", script,
                                 scratch.string(), ec.message())};
    }
    worker = scratch / "kforge_worker.py";
  }
  // -I: no PYTHON* variables, no user site, not the script's folder on sys.path; -B: no .pyc.
  l.argv = {python->string(), "-I", "-B", worker.string()};
  const std::string s = scratch.string(), n = std::to_string(threads);
  l.env = {"HOME=" + s, "TMPDIR=" + s, "USER=kforge",
           "TORCHINDUCTOR_CACHE_DIR=" + (cache / "inductor").string(),
           "TRITON_CACHE_DIR=" + (cache / "triton").string(),
           // Inductor compiles in this process, not in a pool of worker processes.
           "TORCHINDUCTOR_COMPILE_THREADS=1", "JAX_PLATFORMS=" + backend.platform,
           // XLA sizes its CPU thread pool from the CPUs the process may run on, which the worker
           // pins to `threads` before JAX is imported; XLA has no flag for the count itself.
           "XLA_FLAGS=--xla_cpu_multi_thread_eigen=true", "KFORGE_WORKER_THREADS=" + n};
  if (kernel.framework != "pallas") {
    auto xla = xla_compile_cache_env(cache / "jax");
    l.env.insert(l.env.end(), xla.begin(), xla.end());
  }
  l.view = python_view(kernel, scratch, cache, backend);
  return l;
}

std::vector<std::string> xla_compile_cache_env(const std::filesystem::path& dir) {
  // Every compile is kept, however short (a ci-size task compiles in well under JAX's default
  // threshold of a second): what is saved is the check and warm-up time of every later run.
  return {"JAX_COMPILATION_CACHE_DIR=" + dir.string(),
          "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS=0"};
}

std::string jax_platform() { return this_jax_backend().platform; }

std::string timing_basis_for(const std::string& platform) {
  if (platform == "cpu") return "interpret (cpu)";
  return platform == "cuda" ? "gpu" : platform;
}

bool is_peer(const std::string& name) {
  return std::find(std::begin(kPeerNames), std::end(kPeerNames), name) != std::end(kPeerNames);
}

std::string peer_description(const std::string& name) {
  if (name == "torch") return "current PyTorch eager (the library call where there is one)";
  if (name == "torch-compile") return "torch.compile (Inductor, default mode)";
  if (name == "torch-compile-max") return "torch.compile (Inductor, max-autotune)";
  if (name == "xla") return "XLA (jax.jit)";
  return name;
}

Result<PythonKernel> peer_kernel(const core::TaskSpec& spec, const std::string& name) {
  if (!is_peer(name)) return Error{fmt::format("'{}' is not a peer", name)};
  const bool xla = name == "xla";
  auto file = spec.dir / (xla ? "workload.py" : "baseline.py");
  if (!std::filesystem::exists(file))
    return Error{fmt::format("task {} has no {}: the {} peer cannot run it", spec.id,
                             file.filename().string(), name)};
  PythonKernel k;
  k.module = std::filesystem::absolute(file);
  k.framework = xla ? "jax" : name;
  k.callable = xla ? "workload" : defines(file, "library") ? "library" : "baseline";
  if (!defines(file, k.callable))
    return Error{
        fmt::format("{}: no function {}() for the {} peer", file.string(), k.callable, name)};
  return k;
}

}  // namespace kforge::eval
