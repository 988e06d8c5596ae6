#pragma once
// The walls around an untrusted kernel, raised in order as the runner starts:
//   1. rlimits (no core files, no file writes, capped address space and CPU time);
//   2. Landlock: the filesystem becomes read-only and shrinks to the system libraries, the CPU
//      description and the files named here; no TCP; no signals to processes outside;
//   3. one seccomp filter, on every thread (TSYNC), before the kernel's library is opened, so its
//      constructors, IFUNC resolvers and calls all run under it: threads yes; processes, exec,
//      sockets, ptrace, seccomp, prctl and signals to others no; files only opened for reading
//      (Landlock decides which); executable memory only as a read-only mapping of a file that is
//      already on disk (the loader mapping the kernel's own code), never anonymous, never writable,
//      and never added later with mprotect.
// Forbidden calls trap (SIGSYS) so the verdict can name the system call.

#include <cstddef>
#include <string>
#include <vector>

#include "kforge/core/landlock.h"
#include "kforge/core/result.h"

namespace kforge::runner {

// Confines this process (single-threaded still) to `view` for good. Returns the Landlock ABI in
// force, or 0 when the kernel has no Landlock (then only seccomp holds), with why in `error`.
int restrict_filesystem(const core::LandlockView& view, std::string& error);

void set_static_limits();                       // no core files
void forbid_file_growth();                      // no file may grow (RLIMIT_FSIZE 0)
Status limit_address_space(std::size_t bytes);  // RLIMIT_AS
Status limit_cpu_seconds(long seconds);         // RLIMIT_CPU

Status install_kernel_filter(int channel_fd);

// The rules every kernel's filter starts from (memory, threads, futexes, clocks, signals to
// itself); with `device_process` false also ioctl (ENOTTY) and writes to stdout, stderr and the
// channel only. `ctx` is a libseccomp scmp_filter_ctx. Returns non-zero when a rule failed.
int add_common_rules(void* ctx, int channel_fd, bool device_process);

// Human name of a system call number (filled before the sandbox closes; signal-safe lookup).
void prepare_syscall_names();
const char* syscall_name(long number);

}  // namespace kforge::runner
