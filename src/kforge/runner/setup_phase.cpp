// The trusted half of a sandboxed run: everything that needs files, or threads not yet bound by
// the sandbox, happens here, before the candidate exists in this process.
#include <fcntl.h>
#include <fmt/format.h>
#include <omp.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>

#include "kforge/core/input_fill.h"
#include "kforge/runner/fault_report.h"
#include "kforge/runner/phases.h"
#include "kforge/runner/sandbox.h"

namespace kforge::runner {
namespace {

FilesystemView runner_view(const SandboxSetup& setup) {
  FilesystemView v;
  // System libraries (libtorch and its dependencies load from here), and what OpenMP,
  // OpenBLAS and cpuinfo read to learn the machine.
  v.read_dirs = {"/usr/lib", "/usr/lib64", "/lib", "/lib64", "/usr/local/lib", "/sys/devices/system/cpu", "/sys/devices/system/node"};
  v.read_files = {"/etc/ld.so.cache", "/proc/cpuinfo", "/proc/self/maps", "/proc/self/stat", "/proc/self/status", "/dev/null", "/dev/urandom"};
  for (const auto& path : setup.readable) v.read_files.push_back(path);
  return v;
}

// Timing inputs live in a shared file: the harness keeps a writable window, then seals the file
// against any new writable mapping and gives the kernel read-only views.
Status make_timing_inputs(RunState& s) {
  std::vector<std::size_t> bytes = byte_sizes(s.setup.inputs);
  core::SetLayout layout = core::layout_tensors(bytes);
  auto fd = create_shared_file("kforge-timing-inputs", layout.file_bytes);
  if (!fd) return fd.error();
  void* window = mmap(nullptr, layout.file_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
  if (window == MAP_FAILED) return Error{fmt::format("mapping timing inputs: {}", std::strerror(errno))};
  auto* base = static_cast<unsigned char*>(window);
  for (std::size_t i = 0; i < s.setup.inputs.size(); ++i) {
    unsigned char* data = base + layout.slots[i].data_offset;
    core::fill_input(s.setup.inputs[i].as_resolved(), s.setup.timing_seed, static_cast<std::uint32_t>(i), data);
    s.timing_window.push_back(data);
  }
  if (!s.setup.generator.empty()) {
    auto gen = KernelLibrary::open(s.setup.generator, "generate", false);
    if (!gen) return gen.error();
    std::vector<void*> args(s.timing_window.begin(), s.timing_window.end());
    gen->call_generator(s.setup.timing_seed, args);
  }
  for (std::size_t i = 0; i < s.setup.inputs.size(); ++i)
    s.pristine.emplace_back(s.timing_window[i], s.timing_window[i] + s.setup.inputs[i].bytes);
  if (fcntl(*fd, F_ADD_SEALS, F_SEAL_FUTURE_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0)
    return Error{fmt::format("sealing timing inputs: {}", std::strerror(errno))};
  for (std::size_t i = 0; i < s.setup.inputs.size(); ++i) {
    auto b = map_guarded_shared(*fd, layout.slots[i], PROT_READ, RegionKind::input, s.setup.inputs[i].name);
    if (!b) return b.error();
    s.timing_inputs.push_back(*b);
  }
  close(*fd);
  return ok_status();
}

Status make_outputs(const SandboxSetup& setup, OutputSet& out) {
  for (const auto& t : setup.outputs) {
    auto b = map_guarded_private(t.bytes, RegionKind::output, t.name);
    if (!b) return b.error();
    out.live.push_back(*b);
  }
  return ok_status();
}

// Starts the OpenMP pool now, while thread creation and sigaltstack are still allowed, and gives
// each worker a fault stack.
void warm_up_threads(int threads) {
  omp_set_num_threads(threads);
#pragma omp parallel num_threads(threads)
  { prepare_thread_for_faults(); }
}

}  // namespace

Status setup_phase(RunState& s, const nlohmann::json& message) {
  auto setup = parse_setup(message);
  if (!setup) return setup.error();
  s.setup = std::move(*setup);

  set_static_limits();
  install_fault_handlers(s.channel);
  install_profiler_handler();
  std::string landlock_error;
  int landlock_abi = restrict_filesystem(runner_view(s.setup), landlock_error);
  s.proc_stat_fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);

  if (auto st = make_timing_inputs(s); !st) return st;
  if (auto st = make_outputs(s.setup, s.candidate_out); !st) return st;
  if (auto st = make_outputs(s.setup, s.partner_out); !st) return st;
  forbid_file_growth();

  prepare_thread_for_faults();
  warm_up_threads(s.setup.threads);
  if (!s.setup.partner.empty()) {
    // The baseline is trusted: load it and run it once now, so that whatever it initialises
    // lazily (thread pools, CPU detection, which read files) happens before the sandbox closes.
    set_fault_phase("loading the baseline");
    auto partner = KernelLibrary::open(s.setup.partner, "kernel", true);
    if (!partner) return partner.error();
    s.partner = std::move(*partner);
    set_fault_phase("warming up the baseline");
    s.partner->call(s.args(s.timing_inputs, s.partner_out));
  }
  if (!s.setup.trusted_candidate.empty()) {
    set_fault_phase("loading the trusted kernel");
    auto candidate = KernelLibrary::open(s.setup.trusted_candidate, "kernel", true);
    if (!candidate) return candidate.error();
    s.candidate = std::move(*candidate);
    set_fault_phase("warming up the trusted kernel");
    s.candidate->call(s.args(s.timing_inputs, s.candidate_out));
  }
  set_fault_phase("waiting");
  write_message(s.channel, {{"op", "ready"}, {"landlock_abi", landlock_abi}, {"landlock_error", landlock_error},
                            {"threads", thread_count(s.proc_stat_fd)}});
  return ok_status();
}

}  // namespace kforge::runner
