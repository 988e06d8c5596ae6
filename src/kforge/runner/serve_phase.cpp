// The call loop. Before each call the process state a previous call may have changed is reset
// (OpenMP thread count, the calling thread's CPU affinity, the floating-point environment) and the
// OpenMP workers are woken, so each call starts alike, its threads awake as inside a model's
// forward pass. All of it happens between `go` and `done`, inside the time kforge takes: the
// process does nothing for a call outside it (an untimed "prepare" command once ran here, and a
// kernel that took over the runner's code did its whole computation in it). The kernel may undo
// the reset inside its own process: it then changes only its own calls, timed and checked alike.
#include <fenv.h>
#include <omp.h>
#include <sched.h>
#include <unistd.h>

#include <cstdio>

#include "kforge/runner/fault_report.h"
#include "kforge/runner/phases.h"

namespace kforge::runner {
namespace {

void reset_state(const RunState& s) {
  omp_set_num_threads(s.setup.threads);
  sched_setaffinity(0, sizeof s.start_affinity, &s.start_affinity);
  fesetenv(&s.start_fp);
}

const char* phase_name(std::uint32_t input_set) {
  static char buf[64];
  if (input_set == 0) return "a timed call";
  std::snprintf(buf, sizeof buf, "check set %u", input_set);
  return buf;
}

void wake_workers(int threads) {
#pragma omp parallel num_threads(threads)
  { asm volatile("" ::: "memory"); }
}

}  // namespace

void serve_phase(RunState& s) {
  std::uint32_t seen =
      0;  // kforge numbers its commands from 1 (it may send the first before this line runs)
  for (;;) {
    std::uint32_t go = s.control->go.load(std::memory_order_acquire);
    if (go == seen) {
      futex_wait(&s.control->go, seen);
      continue;
    }
    go = s.control->go.load(std::memory_order_acquire);
    seen = go;
    const auto command = static_cast<Command>(s.control->command);
    const std::uint32_t set = s.control->input_set, out = s.control->output_set;
    if (command == Command::stop || set >= s.input_sets.size() || out >= s.output_sets.size())
      _exit(0);
    reset_state(s);
    if (command == Command::call) {
      wake_workers(s.setup.threads);
      set_fault_phase(phase_name(set));
      s.kernel->call(s.args(set, out));
    } else if (command == Command::noop) {
      wake_workers(s.setup.threads);
    } else if (command == Command::profile) {
      profile_phase(s, s.control->profile_seconds);
    }
    set_fault_phase("waiting");
    s.control->done.store(seen, std::memory_order_release);
    futex_wake_all(&s.control->done);
  }
}

}  // namespace kforge::runner
