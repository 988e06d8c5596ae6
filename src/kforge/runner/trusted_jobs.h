#pragma once
// Jobs for trusted task code (reference.cpp, generate.cpp): no sandbox, but still a separate
// process, so a crash or hang in a task's own code is a clear error rather than kforge's death.

#include "kforge/runner/protocol.h"

namespace kforge::runner {

// {"op":"reference"} with fds [inputs file, outputs file], or {"op":"generate"} with fds
// [inputs file]. Sends {"op":"done", "ms": …}. Returns the process exit code.
int run_trusted_job(Message& message);

}  // namespace kforge::runner
