#pragma once
// The phases of a sandboxed evaluation, in the order the runner goes through them. Each sends
// its outcome on the channel; a Status error means the harness itself could not proceed.

#include "kforge/runner/protocol.h"
#include "kforge/runner/run_state.h"

namespace kforge::runner {

// Before any untrusted code: limits, Landlock, timing inputs, the baseline warmed up, OpenMP
// threads started (each with a fault stack). Sends {"op":"ready"}.
Status setup_phase(RunState& s, const nlohmann::json& message);

// Maps the check inputs and the results file, closes the sandbox's seccomp doors around
// dlopen of the candidate. Sends nothing (the check phase reports).
Status load_phase(RunState& s, Message& message);

// Calls the kernel once per check set on NaN-poisoned outputs; snapshots at return; verifies
// inputs and background activity. Sends {"op":"checked", ...}.
void check_phase(RunState& s);

// Paired, interleaved timing against the partner with perturbed inputs. Sends {"op":"timed", ...}.
void timing_phase(RunState& s, const TimeRequest& request);

// Before the sandbox closes: the SIGPROF handler the profiler needs.
void install_profiler_handler();

// Samples where the candidate spends its time over `seconds` of repeated calls on the timing
// inputs. Sends {"op":"profiled", samples per loaded object, and per offset into the kernel}.
void profile_phase(RunState& s, double seconds);

}  // namespace kforge::runner
