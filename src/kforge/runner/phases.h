#pragma once
// The phases of a kernel process, in order. Each returns a Status error only when the harness
// itself cannot proceed; what the kernel does is observed by kforge, not reported from here.

#include "kforge/runner/protocol.h"
#include "kforge/runner/run_state.h"

namespace kforge::runner {

// Before any untrusted code: limits, Landlock, the buffers and the control page mapped from the
// descriptors kforge sent, OpenMP threads started (each with a fault stack); a trusted kernel is
// loaded and warmed up here.
Status setup_phase(RunState& s, Message& message);

// An untrusted kernel: the seccomp filter goes on (all threads, TSYNC), then the library is
// loaded, so its constructors and IFUNC resolvers run under the same rules as its calls.
Status load_phase(RunState& s);

// Serves commands from the control page until told to stop: call the kernel on an input set,
// or profile it. Never returns.
[[noreturn]] void serve_phase(RunState& s);

// Before the sandbox closes: the SIGPROF handler the profiler needs.
void install_profiler_handler();

// Samples where the kernel spends its time over `seconds` of repeated calls on the timing
// inputs. Sends {"op":"profiled", samples per loaded object, and per offset into the kernel}.
// The profile is advice for the model, never a verdict or a time.
void profile_phase(RunState& s, double seconds);

}  // namespace kforge::runner
