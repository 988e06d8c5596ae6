#pragma once
// Everything a kernel process holds between its phases: the loaded kernel, the buffers it sees
// (all guarded) and the control page. Nothing here decides a verdict: kforge poisons, snapshots,
// compares and times from its own process.

#include <fenv.h>
#include <sched.h>

#include <optional>
#include <vector>

#include "kforge/runner/control_page.h"
#include "kforge/runner/guarded_buffers.h"
#include "kforge/runner/job.h"
#include "kforge/runner/kernel_library.h"

namespace kforge::runner {

struct RunState {
  KernelSetup setup;
  int channel = 3;
  std::vector<std::vector<GuardedBuffer>> input_sets;  // read-only views; 0: the timing inputs
  std::vector<std::vector<GuardedBuffer>>
      output_sets;  // shared with kforge, which poisons and reads them
  ControlPage* control = nullptr;
  std::optional<KernelLibrary> kernel;
  // The state every call starts from, captured before any kernel code ran.
  cpu_set_t start_affinity{};
  fenv_t start_fp{};

  std::vector<void*> args(std::size_t input_set, std::size_t output_set) const;
};

double now_seconds();

}  // namespace kforge::runner
