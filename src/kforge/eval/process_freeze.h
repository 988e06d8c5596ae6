#pragma once
// Stopping a child process between its timed calls, and letting it run again. Stopped (SIGSTOP),
// no thread of it runs: an OpenMP worker spinning after its region, a thread a kernel left behind,
// a peer's pool. The judge stops each kernel process as its call returns and lets it run just
// before its next call, so neither side of a pair takes a CPU from the other or works outside its
// own calls, and no pair waits for a process to go idle (docs/timing.md).
#include <sys/types.h>

namespace kforge::eval {

// Sends the stop and returns at once: the caller copies outputs while it lands.
void begin_freeze(pid_t child);

enum class FreezeOutcome { frozen, died };
// Sleeps until every thread of `child` (a child of this process) has stopped, or it died; a death
// is left to be reaped by the caller's waitpid. Only an uninterruptible wait delays a stop, and a
// sandboxed kernel has no call that waits so long.
FreezeOutcome wait_frozen(pid_t child);

// Still stopped: nothing has let it run since (no kernel can: it may signal only itself).
bool is_frozen(pid_t child);

// Lets it run again: its threads resume where they were (a worker still spinning spins on).
void thaw(pid_t child);

}  // namespace kforge::eval
