// rlimits, Landlock (through core/landlock.h) and the seccomp filter.
#include "kforge/runner/sandbox.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <seccomp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <sched.h>
#include <cerrno>
#include <cstring>
#include <functional>

namespace kforge::runner {
namespace {

char g_syscall_names[512][32];

}  // namespace

// The calls both filters allow. Everything a kernel plausibly needs: memory, threads, futexes,
// clocks, writing to stdout/stderr and the channel, raising a signal on itself (abort).
int add_common_rules(scmp_filter_ctx ctx, int channel_fd, bool device_process) {
  int r = 0;
  auto allow = [&](int nr) { r |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0); };
  for (int nr : {SCMP_SYS(munmap),
                 SCMP_SYS(mremap),
                 SCMP_SYS(madvise),
                 SCMP_SYS(brk),
                 SCMP_SYS(futex),
                 SCMP_SYS(sched_yield),
                 SCMP_SYS(sched_getaffinity),
                 SCMP_SYS(sched_setaffinity),
                 SCMP_SYS(set_robust_list),
                 SCMP_SYS(get_robust_list),
                 SCMP_SYS(rseq),
                 SCMP_SYS(exit),
                 SCMP_SYS(exit_group),
                 SCMP_SYS(gettid),
                 SCMP_SYS(getpid),
                 SCMP_SYS(getppid),
                 SCMP_SYS(rt_sigprocmask),
                 SCMP_SYS(rt_sigreturn),
                 SCMP_SYS(clock_gettime),
                 SCMP_SYS(clock_getres),
                 SCMP_SYS(clock_nanosleep),
                 SCMP_SYS(nanosleep),
                 SCMP_SYS(gettimeofday),
                 SCMP_SYS(time),
                 SCMP_SYS(getrandom),
                 SCMP_SYS(getrusage),
                 SCMP_SYS(sysinfo),
                 SCMP_SYS(fstat),
                 SCMP_SYS(getcpu),
                 SCMP_SYS(setitimer),
                 SCMP_SYS(sched_getparam),
                 SCMP_SYS(sched_getscheduler),
                 SCMP_SYS(membarrier)})
    allow(nr);
  // Threads only: clone must carry CLONE_THREAD; clone3 cannot be inspected, so it reports ENOSYS
  // and glibc falls back to clone.
  r |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(clone), 1,
                        SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, CLONE_THREAD));
  r |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
  // Signals only to itself (abort() raises SIGABRT with tgkill).
  r |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(tgkill), 1,
                        SCMP_A0(SCMP_CMP_EQ, static_cast<scmp_datum_t>(getpid())));
  // Reading limits is fine, setting them is not.
  r |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(prlimit64), 1, SCMP_A2(SCMP_CMP_EQ, 0));
  // fstat through fstatat(fd, "", AT_EMPTY_PATH) (stdio does this); path lookups are not fstat.
  r |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(newfstatat), 1,
                        SCMP_A3(SCMP_CMP_MASKED_EQ, AT_EMPTY_PATH, AT_EMPTY_PATH));
  // The device process decides ioctl and write by its own rules (cuda_sandbox.cpp).
  if (device_process) return r;
  // isatty() on stdout: answer "not a terminal" without doing anything.
  r |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOTTY), SCMP_SYS(ioctl), 0);
  for (int fd : {1, 2, channel_fd}) {
    r |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(write), 1,
                          SCMP_A0(SCMP_CMP_EQ, static_cast<scmp_datum_t>(fd)));
    r |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(writev), 1,
                          SCMP_A0(SCMP_CMP_EQ, static_cast<scmp_datum_t>(fd)));
  }
  return r;
}

namespace {

Status load_filter(const std::function<int(scmp_filter_ctx)>& rules, const char* which) {
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_TRAP);
  if (!ctx) return Error{fmt::format("seccomp_init failed for the {} filter", which)};
  int r = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1);
  r |= seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0);  // set once by hand; prctl is forbidden later
  r |= rules(ctx);
  if (r == 0) r = seccomp_load(ctx);
  seccomp_release(ctx);
  if (r != 0)
    return Error{
        fmt::format("installing the {} seccomp filter failed: {}", which, std::strerror(-r))};
  return ok_status();
}

}  // namespace

int restrict_filesystem(const core::LandlockView& view, std::string& error) {
  auto ruleset = core::LandlockRuleset::prepare(view);
  if (!ruleset) {
    error = ruleset.error().message;
    return 0;
  }
  if (ruleset->abi() == 0) {
    error = "Landlock unavailable on this kernel";
    return 0;
  }
  if (int e = ruleset->apply(); e != 0) {
    error = fmt::format("landlock_restrict_self: {}", std::strerror(e));
    return 0;
  }
  return ruleset->abi();
}

void set_static_limits() {
  rlimit zero{0, 0};
  setrlimit(RLIMIT_CORE, &zero);
}

void forbid_file_growth() {
  // After the runner's own shared-memory files are sized: ftruncate on a memfd obeys this too.
  rlimit zero{0, 0};
  setrlimit(RLIMIT_FSIZE, &zero);
}

Status limit_address_space(std::size_t bytes) {
  rlimit lim{bytes, bytes};
  if (setrlimit(RLIMIT_AS, &lim) != 0)
    return Error{fmt::format("setrlimit(RLIMIT_AS): {}", std::strerror(errno))};
  return ok_status();
}

Status limit_cpu_seconds(long seconds) {
  rlimit lim{static_cast<rlim_t>(seconds), static_cast<rlim_t>(seconds + 5)};
  if (setrlimit(RLIMIT_CPU, &lim) != 0)
    return Error{fmt::format("setrlimit(RLIMIT_CPU): {}", std::strerror(errno))};
  return ok_status();
}

Status install_kernel_filter(int channel_fd) {
  prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
  return load_filter(
      [&](scmp_filter_ctx ctx) {
        int r = add_common_rules(ctx, channel_fd, false);
        auto allow = [&](int nr, unsigned count, auto... cmp) {
          r |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, count, cmp...);
        };
        // The loader reads the library; Landlock decides which files exist for it. Opening for
        // writing is refused outright (there is nothing writable to open anyway).
        constexpr scmp_datum_t kWriteFlags = O_ACCMODE | O_CREAT | O_TRUNC | O_APPEND;
        allow(SCMP_SYS(openat), 1, SCMP_A2(SCMP_CMP_MASKED_EQ, kWriteFlags, 0));
        allow(SCMP_SYS(open), 1, SCMP_A1(SCMP_CMP_MASKED_EQ, kWriteFlags, 0));
        for (int nr : {SCMP_SYS(read), SCMP_SYS(pread64), SCMP_SYS(close), SCMP_SYS(lseek),
                       SCMP_SYS(newfstatat), SCMP_SYS(statx), SCMP_SYS(access), SCMP_SYS(faccessat),
                       SCMP_SYS(faccessat2), SCMP_SYS(readlink), SCMP_SYS(getcwd)})
          allow(nr, 0);
        // Memory: anything not executable. Executable only when mapped from a file, never
        // writable at the same time; mprotect may never add PROT_EXEC (so no page that was ever
        // writable becomes code).
        allow(SCMP_SYS(mmap), 1, SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
        allow(SCMP_SYS(mmap), 2, SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC | PROT_WRITE, PROT_EXEC),
              SCMP_A3(SCMP_CMP_MASKED_EQ, MAP_ANONYMOUS, 0));
        allow(SCMP_SYS(mprotect), 1, SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
        return r;
      },
      "kernel");
}

void prepare_syscall_names() {
  for (int nr = 0; nr < 512; ++nr) {
    char* name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);
    std::snprintf(g_syscall_names[nr], sizeof g_syscall_names[nr], "%s", name ? name : "?");
    std::free(name);
  }
}

const char* syscall_name(long number) {
  if (number < 0 || number >= 512) return "?";
  return g_syscall_names[number];
}

}  // namespace kforge::runner
