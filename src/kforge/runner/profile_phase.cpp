// Sampling profiler: while the kernel runs in a loop, a CPU-time timer (ITIMER_PROF, 1 kHz of
// process CPU time, so every busy thread contributes) interrupts it; the handler records the
// interrupted instruction address. Addresses are reported per loaded object, and as offsets
// into the kernel's shared object, which the parent maps to source lines with its debug info.
#include <dlfcn.h>
#include <link.h>
#include <signal.h>
#include <sys/time.h>
#include <ucontext.h>

#include <atomic>
#include <map>
#include <string>

#include "kforge/runner/fault_report.h"
#include "kforge/runner/phases.h"

namespace kforge::runner {
namespace {

constexpr std::size_t kMaxSamples = 1 << 16;
std::uintptr_t g_samples[kMaxSamples];
std::atomic<std::size_t> g_sample_count{0};
std::atomic<bool> g_sampling{false};

void on_sigprof(int, siginfo_t*, void* context) {
  if (!g_sampling.load(std::memory_order_relaxed)) return;
  auto* uc = static_cast<ucontext_t*>(context);
  std::size_t i = g_sample_count.fetch_add(1, std::memory_order_relaxed);
  if (i < kMaxSamples) g_samples[i] = static_cast<std::uintptr_t>(uc->uc_mcontext.gregs[REG_RIP]);
}

struct LoadedObject {
  std::string name;
  std::uintptr_t base = 0, begin = 0, end = 0;
};

int collect_object(dl_phdr_info* info, size_t, void* data) {
  auto* out = static_cast<std::vector<LoadedObject>*>(data);
  LoadedObject o{info->dlpi_name && *info->dlpi_name ? info->dlpi_name : "kforge-run",
                 info->dlpi_addr, UINTPTR_MAX, 0};
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const auto& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X)) continue;
    o.begin = std::min<std::uintptr_t>(o.begin, info->dlpi_addr + ph.p_vaddr);
    o.end = std::max<std::uintptr_t>(o.end, info->dlpi_addr + ph.p_vaddr + ph.p_memsz);
  }
  if (o.end > o.begin) out->push_back(o);
  return 0;
}

std::string short_name(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

void install_profiler_handler() {
  struct sigaction sa {};
  sa.sa_sigaction = on_sigprof;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGPROF, &sa, nullptr);
}

void profile_phase(RunState& s, double seconds) {
  std::vector<LoadedObject> objects;
  dl_iterate_phdr(collect_object, &objects);
  Dl_info info{};
  dladdr(s.kernel->entry_address(), &info);
  const std::string kernel_object = info.dli_fname ? info.dli_fname : "";

  set_fault_phase("kernel, profiling");
  g_sample_count = 0;
  g_sampling = true;
  itimerval timer{{0, 1000}, {0, 1000}};
  setitimer(ITIMER_PROF, &timer, nullptr);
  int calls = 0;
  const double start = now_seconds();
  while (now_seconds() - start < seconds || calls < 3) {
    s.kernel->call(s.args(0, 0));
    ++calls;
  }
  itimerval off{};
  setitimer(ITIMER_PROF, &off, nullptr);
  g_sampling = false;
  set_fault_phase("waiting");

  std::size_t n = std::min(g_sample_count.load(), kMaxSamples);
  std::map<std::string, long> per_object;
  std::map<std::uintptr_t, long> kernel_offsets;
  for (std::size_t i = 0; i < n; ++i) {
    std::uintptr_t pc = g_samples[i];
    const LoadedObject* owner = nullptr;
    for (const auto& o : objects)
      if (pc >= o.begin && pc < o.end) owner = &o;
    std::string name = owner ? short_name(owner->name) : "(unknown)";
    ++per_object[owner && owner->name == kernel_object ? "kernel" : name];
    if (owner && owner->name == kernel_object) ++kernel_offsets[pc - owner->base];
  }
  nlohmann::json offsets = nlohmann::json::array();
  for (const auto& [off, count] : kernel_offsets) offsets.push_back({off, count});
  write_message(s.channel, {{"op", "profiled"},
                            {"samples", n},
                            {"calls", calls},
                            {"seconds", now_seconds() - start},
                            {"objects", per_object},
                            {"kernel_offsets", offsets}});
}

}  // namespace kforge::runner
