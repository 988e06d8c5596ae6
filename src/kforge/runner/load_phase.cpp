// Maps what the parent prepared, then loads the untrusted kernel between the two seccomp filters:
// its constructors run under the loading filter, its calls under the running one.
#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>

#include "kforge/runner/fault_report.h"
#include "kforge/runner/phases.h"
#include "kforge/runner/sandbox.h"

namespace kforge::runner {
namespace {

// Virtual memory already held (libraries, buffers, thread stacks), from /proc/self/statm.
std::size_t current_vm_bytes() {
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return 0;
  unsigned long pages = 0;
  if (std::fscanf(f, "%lu", &pages) != 1) pages = 0;
  std::fclose(f);
  return pages * core::page_size();
}

Status map_check_sets(RunState& s, const std::vector<int>& fds, int sets) {
  core::SetLayout in_layout = core::layout_tensors(byte_sizes(s.setup.inputs));
  for (int k = 0; k < sets; ++k) {
    std::vector<GuardedBuffer> set;
    for (std::size_t i = 0; i < s.setup.inputs.size(); ++i) {
      auto b = map_guarded_shared(fds[k], in_layout.slots[i], PROT_READ, RegionKind::input, s.setup.inputs[i].name);
      if (!b) return b.error();
      set.push_back(*b);
    }
    s.check_hashes.push_back(hash_inputs(set));
    s.check_inputs.push_back(std::move(set));
  }
  s.output_layout = core::layout_tensors(byte_sizes(s.setup.outputs));
  std::size_t who = s.partner_untrusted ? 2 : 1;
  std::size_t bytes = s.output_layout.file_bytes * static_cast<std::size_t>(sets) * who;
  void* results = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fds[sets], 0);
  if (results == MAP_FAILED) return Error{fmt::format("mapping the results file: {}", std::strerror(errno))};
  s.results = static_cast<unsigned char*>(results);
  return ok_status();
}

}  // namespace

Status load_phase(RunState& s, Message& message) {
  auto request = parse_load(message.body);
  if (!request) return request.error();
  if (static_cast<int>(message.fds.size()) != request->check_sets + 1)
    return Error{fmt::format("load: expected {} descriptors, got {}", request->check_sets + 1, message.fds.size())};
  s.partner_untrusted = !request->untrusted_partner.empty();
  if (auto st = map_check_sets(s, message.fds, request->check_sets); !st) return st;
  for (int fd : message.fds) close(fd);  // the mappings stay; the kernel cannot map them anew
  message.fds.clear();

  // Address space: what the runner holds now plus the budget, plus room per thread for glibc's
  // malloc arenas (64 MiB reservations) and stacks.
  std::size_t per_thread = 192ull << 20;
  if (auto st = limit_address_space(current_vm_bytes() + s.setup.memory_bytes + per_thread * static_cast<std::size_t>(s.setup.threads + 2)); !st)
    return st;
  if (auto st = limit_cpu_seconds(s.setup.cpu_seconds); !st) return st;

  if (s.candidate) return ok_status();  // trusted: loaded during setup, no seccomp (see job.h)

  if (auto st = install_loading_filter(s.channel); !st) return st;
  set_fault_phase("loading the kernel");
  auto candidate = KernelLibrary::open(request->candidate, "kernel", false);
  if (!candidate) return with_context(candidate.error(), "loading the kernel");
  s.candidate = std::move(*candidate);
  if (s.partner_untrusted) {
    auto partner = KernelLibrary::open(request->untrusted_partner, "kernel", false);
    if (!partner) return with_context(partner.error(), "loading the --against kernel");
    s.partner = std::move(*partner);
  }
  if (auto st = install_running_filter(s.channel, s.proc_stat_fd); !st) return st;
  set_fault_phase("after loading");
  return ok_status();
}

}  // namespace kforge::runner
