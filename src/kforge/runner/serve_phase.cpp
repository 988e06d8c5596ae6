// The call loop. Before each call the process state a previous call may have changed is reset
// (OpenMP thread count, the calling thread's CPU affinity, the floating-point environment), so
// each call starts alike. The kernel may undo this inside its own process: it then changes only
// its own calls, which kforge times and checks like any other.
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

// After a prepare: the next command follows within microseconds; watching for it awake (for at
// most 5 ms) keeps this thread on its CPU, next to the workers the prepare woke.
bool watch_for_command(const RunState& s, std::uint32_t seen) {
  const double until = now_seconds() + 0.005;
  while (now_seconds() < until)
    for (int i = 0; i < 256; ++i) {
      if (s.control->go.load(std::memory_order_acquire) != seen) return true;
      __builtin_ia32_pause();
    }
  return false;
}

void wake_workers(int threads) {
#pragma omp parallel num_threads(threads)
  { asm volatile("" ::: "memory"); }
}

}  // namespace

void serve_phase(RunState& s) {
  std::uint32_t seen =
      0;  // kforge numbers its commands from 1 (it may send the first before this line runs)
  bool watch = false;
  for (;;) {
    std::uint32_t go = s.control->go.load(std::memory_order_acquire);
    if (go == seen && !(watch && watch_for_command(s, seen))) {
      watch = false;
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
      set_fault_phase(phase_name(set));
      s.kernel->call(s.args(set, out));
    } else if (command == Command::profile) {
      profile_phase(s, s.control->profile_seconds);
    } else if (command == Command::prepare) {
      wake_workers(s.setup.threads);
    }
    watch = command == Command::prepare;
    set_fault_phase("waiting");
    s.control->done.store(seen, std::memory_order_release);
    futex_wake_all(&s.control->done);
  }
}

}  // namespace kforge::runner
