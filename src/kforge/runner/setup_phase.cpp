// The trusted half of a kernel process: everything that needs files, or threads not yet bound by
// the sandbox, happens here, before an untrusted kernel exists in this process.
#include <dlfcn.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <omp.h>
#include <sys/mman.h>
#include <unistd.h>

#include <sched.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "kforge/runner/fault_report.h"
#include "kforge/runner/phases.h"
#include "kforge/runner/sandbox.h"

namespace kforge::runner {
namespace {

// What OpenMP and cpuinfo read to learn the machine, and the process's own folder. A trusted
// kernel also gets the system libraries (libtorch, oneDNN and OpenBLAS load from there, lazily).
// An untrusted one does not: the libraries it may use are loaded before the walls go up (see
// preload_libraries), so at run time it cannot dlopen OpenBLAS or anything else the link check
// refused. /proc/self/maps: glibc reads it for the main thread's stack.
core::LandlockView runner_view(const KernelSetup& setup) {
  core::LandlockView v;
  v.read_dirs = {"/sys/devices/system/cpu", "/sys/devices/system/node"};
  v.read_files = {"/proc/cpuinfo",     "/proc/self/maps", "/proc/self/stat",
                  "/proc/self/status", "/dev/null",       "/dev/urandom"};
  if (setup.trusted) {
    for (const char* d : {"/usr/lib", "/usr/lib64", "/lib", "/lib64", "/usr/local/lib"})
      v.read_dirs.push_back(d);
    v.read_files.push_back("/etc/ld.so.cache");
  }
  for (const auto& path : setup.readable) v.read_dirs.push_back(path);
  return v;
}

// The libraries an untrusted kernel links (the link check allowed them), loaded now: the loader
// then finds them by soname when it loads the kernel, without opening anything.
Status preload_libraries(const KernelSetup& setup) {
  for (const auto& soname : setup.preload)
    if (!dlopen(soname.c_str(), RTLD_NOW | RTLD_GLOBAL))
      return Error{fmt::format("preloading {}: {}", soname, dlerror())};
  return ok_status();
}

// Input sets read-only, output sets read-write: the descriptors kforge sent, in that order.
Status map_sets(RunState& s, const std::vector<int>& fds) {
  for (int k = 0; k < s.setup.input_sets; ++k) {
    auto set = map_tensor_set(fds[static_cast<std::size_t>(k)], s.setup.inputs, PROT_READ,
                              RegionKind::input);
    if (!set) return set.error();
    s.input_sets.push_back(std::move(*set));
  }
  for (int k = 0; k < s.setup.output_sets; ++k) {
    auto set = map_tensor_set(
        fds[static_cast<std::size_t>(s.setup.input_sets) + static_cast<std::size_t>(k)],
        s.setup.outputs, PROT_READ | PROT_WRITE, RegionKind::output);
    if (!set) return set.error();
    s.output_sets.push_back(std::move(*set));
  }
  return ok_status();
}

Status map_control(RunState& s, int fd) {
  void* p = mmap(nullptr, sizeof(ControlPage), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED)
    return Error{fmt::format("mapping the control page: {}", std::strerror(errno))};
  s.control = static_cast<ControlPage*>(p);
  return ok_status();
}

// Virtual memory already held (libraries, buffers, thread stacks), from /proc/self/statm.
std::size_t current_vm_bytes() {
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return 0;
  unsigned long pages = 0;
  if (std::fscanf(f, "%lu", &pages) != 1) pages = 0;
  std::fclose(f);
  return pages * core::page_size();
}

// Starts the OpenMP pool now, while sigaltstack is still allowed, gives each worker a fault stack,
// and pins thread i to the i-th CPU of kforge's order (cpu_choice.h; else the i-th it may use).
// Between two timed calls kforge's own process runs (copies, comparisons, perturbation); unpinned,
// the scheduler then often stacked a kernel's two threads on one CPU of two until the next
// balancing tick: a 2.4 ms call read 6 or 8 ms at random, A/A ratios 0.3-2.2 per pair. Pinned,
// calls read 2.3-2.6 ms and A/A 0.98-1.00 (libtorch 12p and 8p too). Both sides of a pair are
// pinned alike. A user's OMP_PROC_BIND or OMP_PLACES replaces this with OpenMP's own binding.
void warm_up_threads(int threads, const std::vector<int>& order) {
  omp_set_num_threads(threads);
  cpu_set_t allowed;
  sched_getaffinity(0, sizeof allowed, &allowed);
  std::vector<int> cpus;
  for (int c : order)  // kforge's order, where every CPU in it is one this process may use
    if (c >= 0 && c < CPU_SETSIZE && CPU_ISSET(c, &allowed)) cpus.push_back(c);
  if (cpus.size() != order.size()) cpus.clear();
  if (cpus.empty())
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &allowed)) cpus.push_back(c);
  // The runner is a child process: the environment kforge gave it is its only configuration.
  const bool pin = !std::getenv("OMP_PROC_BIND") && !std::getenv("OMP_PLACES");
#pragma omp parallel num_threads(threads)
  {
    prepare_thread_for_faults();
    if (pin && !cpus.empty()) {
      cpu_set_t one;
      CPU_ZERO(&one);
      CPU_SET(cpus[static_cast<std::size_t>(omp_get_thread_num()) % cpus.size()], &one);
      sched_setaffinity(0, sizeof one, &one);
    }
  }
}

}  // namespace

Status setup_phase(RunState& s, Message& message) {
  auto setup = parse_setup(message.body);
  if (!setup) return setup.error();
  s.setup = std::move(*setup);
  const int expected_fds = s.setup.input_sets + s.setup.output_sets + 1;
  if (static_cast<int>(message.fds.size()) != expected_fds)
    return Error{
        fmt::format("setup: expected {} descriptors, got {}", expected_fds, message.fds.size())};

  set_static_limits();
  install_profiler_handler();
  if (auto st = preload_libraries(s.setup); !st) return st;
  std::string landlock_error;
  int landlock_abi = restrict_filesystem(runner_view(s.setup), landlock_error);
  if (auto st = map_control(s, message.fds.back()); !st) return st;
  install_fault_handlers(s.channel, &s.control->done);
  if (auto st = map_sets(s, message.fds); !st) return st;
  for (int fd : message.fds) close(fd);  // the mappings stay; the kernel cannot map them anew
  message.fds.clear();
  forbid_file_growth();

  prepare_thread_for_faults();
  warm_up_threads(s.setup.threads, s.setup.cpus);
  sched_getaffinity(0, sizeof s.start_affinity, &s.start_affinity);
  fegetenv(&s.start_fp);
  if (s.setup.trusted) {
    // Trusted code (libtorch, oneDNN) initialises lazily (thread pools, CPU detection, which read
    // files): load it and run it once now. kforge poisons the outputs before every real call.
    set_fault_phase("loading the trusted kernel");
    auto kernel = KernelLibrary::open(s.setup.library, "kernel");
    if (!kernel) return kernel.error();
    s.kernel = *kernel;  // a handle: copying it is the move
    set_fault_phase("warming up the trusted kernel");
    s.kernel->call(s.args(0, 0));
  }
  // Address space: what the runner holds now plus the budget, plus room per thread for glibc's
  // malloc arenas (64 MiB reservations) and stacks.
  std::size_t per_thread = 192ull << 20;
  if (auto st = limit_address_space(current_vm_bytes() + s.setup.memory_bytes +
                                    per_thread * static_cast<std::size_t>(s.setup.threads + 2));
      !st)
    return st;
  if (auto st = limit_cpu_seconds(s.setup.cpu_seconds); !st) return st;
  set_fault_phase("waiting");
  message.body = {{"landlock_abi", landlock_abi}, {"landlock_error", landlock_error}};
  return ok_status();
}

}  // namespace kforge::runner
