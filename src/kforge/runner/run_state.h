#pragma once
// Everything a sandboxed evaluation holds between its phases: the loaded kernels, the buffers
// they see (all guarded), the harness's private copies, and the channel.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kforge/core/buffer_layout.h"
#include "kforge/runner/guarded_buffers.h"
#include "kforge/runner/job.h"
#include "kforge/runner/kernel_library.h"

namespace kforge::runner {

// One set of output buffers as a kernel sees them, plus the harness's snapshot of them.
struct OutputSet {
  std::vector<GuardedBuffer> live;
  std::vector<std::vector<unsigned char>> snapshot;
};

struct RunState {
  SandboxSetup setup;
  int channel = 3;
  int proc_stat_fd = -1;

  // Timing inputs: the kernel's read-only views, the harness's writable window onto the same
  // pages (sealed against any new writable mapping), and the pristine values perturbation starts from.
  std::vector<GuardedBuffer> timing_inputs;
  std::vector<unsigned char*> timing_window;
  std::vector<std::vector<unsigned char>> pristine;

  // Check inputs: sealed read-only files from the parent, one vector per set, with their hashes.
  std::vector<std::vector<GuardedBuffer>> check_inputs;
  std::vector<std::uint64_t> check_hashes;
  unsigned char* results = nullptr;  // shared with the parent: output snapshots of every check call
  core::SetLayout output_layout;

  OutputSet candidate_out;
  OutputSet partner_out;

  std::optional<KernelLibrary> candidate;
  std::optional<KernelLibrary> partner;
  bool partner_untrusted = false;

  std::vector<void*> args(const std::vector<GuardedBuffer>& inputs, const OutputSet& outputs) const;
};

// Fills every output with a poison value (NaN for floats): untouched elements cannot pass.
void poison(const SandboxSetup& setup, OutputSet& outputs);
// Copies live outputs into the snapshot (taken the moment the kernel returns).
void take_snapshot(OutputSet& outputs);
// Hash of a list of input buffers, in order.
std::uint64_t hash_inputs(const std::vector<GuardedBuffer>& inputs);
// Threads in this process now (from /proc/self/stat through a descriptor opened before the sandbox).
int thread_count(int proc_stat_fd);
// Process CPU time spent while the harness sleeps: non-zero means work left running in the background.
double idle_cpu_ms();
double now_seconds();

}  // namespace kforge::runner
