// Loads an untrusted kernel under the seccomp filter it will run under. There is one filter and it
// goes on before the first byte of the kernel's code runs: a constructor can neither install a
// filter of its own (seccomp is forbidden) nor find a looser stage to exploit.
#include "kforge/runner/fault_report.h"
#include "kforge/runner/phases.h"
#include "kforge/runner/sandbox.h"

namespace kforge::runner {

Status load_phase(RunState& s) {
  if (s.setup.trusted) return ok_status();  // loaded during setup
  if (auto st = install_kernel_filter(s.channel); !st) return st;
  set_fault_phase("loading the kernel");
  auto kernel = KernelLibrary::open(s.setup.library, "kernel");
  if (!kernel) return with_context(kernel.error(), "loading the kernel");
  s.kernel = *kernel;  // a handle: copying it is the move
  set_fault_phase("waiting");
  return ok_status();
}

}  // namespace kforge::runner
