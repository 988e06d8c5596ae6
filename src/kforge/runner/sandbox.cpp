// rlimits, Landlock (through core/landlock.h) and the seccomp filter.
#include "kforge/runner/sandbox.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <link.h>
#include <seccomp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <sched.h>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <functional>

namespace kforge::runner {
namespace {

char g_syscall_names[512][32];

}  // namespace

namespace {

// Calls that name a process: allowed on this process only, as pid 0 or its own pid (its tgid).
// Any other pid (the partner, kforge, another evaluation's runner, one of its own threads by tid)
// traps: a kernel that pinned the partner's threads onto one CPU or read its limits once slowed it
// 8x and stayed `correct`. Which pids exist is not the filter's to know, so "itself" is the only
// pid it can allow; the runner pins the kernel's threads itself before the filter goes on.
int add_own_process_rules(scmp_filter_ctx ctx) {
  int r = 0;
  const auto self = static_cast<scmp_datum_t>(getpid());
  for (scmp_datum_t pid : {scmp_datum_t{0}, self}) {
    for (int nr : {SCMP_SYS(sched_getaffinity), SCMP_SYS(sched_setaffinity),
                   SCMP_SYS(sched_getparam), SCMP_SYS(sched_getscheduler)})
      r |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 1, SCMP_A0(SCMP_CMP_EQ, pid));
    // Reading its own limits is fine, setting them is not.
    r |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(prlimit64), 2, SCMP_A0(SCMP_CMP_EQ, pid),
                          SCMP_A2(SCMP_CMP_EQ, 0));
  }
  // Signals only to itself (abort() raises SIGABRT with tgkill).
  r |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(tgkill), 1, SCMP_A0(SCMP_CMP_EQ, self));
  return r;
}

// madvise with the advice that concerns only this process's view of its memory. Not MADV_REMOVE
// (it frees the pages of a shared file for every process that maps it), MADV_COLD or
// MADV_PAGEOUT (they push shared pages, the timing inputs kforge writes, out of memory), nor the
// hardware-poisoning ones.
int add_madvise_rules(scmp_filter_ctx ctx) {
  int r = 0;
  for (int advice : {MADV_NORMAL, MADV_RANDOM, MADV_SEQUENTIAL, MADV_WILLNEED, MADV_DONTNEED,
                     MADV_FREE, MADV_DONTFORK, MADV_DOFORK, MADV_MERGEABLE, MADV_UNMERGEABLE,
                     MADV_HUGEPAGE, MADV_NOHUGEPAGE, MADV_DONTDUMP, MADV_DODUMP, MADV_WIPEONFORK,
                     MADV_KEEPONFORK, 22 /* MADV_POPULATE_READ */, 23 /* MADV_POPULATE_WRITE */})
    r |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(madvise), 1,
                          SCMP_A2(SCMP_CMP_EQ, static_cast<scmp_datum_t>(advice)));
  return r;
}

}  // namespace

// The calls both filters allow. Everything a kernel plausibly needs: memory, threads, futexes,
// clocks, writing to stdout/stderr and the channel, raising a signal on itself (abort).
int add_common_rules(scmp_filter_ctx ctx, int channel_fd, bool device_process) {
  int r = 0;
  auto allow = [&](int nr) { r |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0); };
  for (int nr : {SCMP_SYS(brk),
                 SCMP_SYS(futex),
                 SCMP_SYS(sched_yield),
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
                 SCMP_SYS(membarrier)})
    allow(nr);
  // Resumes a sleep or a timed wait that a stop cut: kforge stops a timed process between its
  // calls (SIGSTOP, SIGCONT), and this only goes on with the call that was cut.
  allow(SCMP_SYS(restart_syscall));
  r |= add_own_process_rules(ctx);
  r |= add_madvise_rules(ctx);
  // Threads only: clone must carry CLONE_THREAD; clone3 cannot be inspected, so it reports ENOSYS
  // and glibc falls back to clone.
  r |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(clone), 1,
                        SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, CLONE_THREAD));
  r |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
  // fstat through fstatat(fd, "", AT_EMPTY_PATH) (stdio does this); path lookups are not fstat.
  r |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(newfstatat), 1,
                        SCMP_A3(SCMP_CMP_MASKED_EQ, AT_EMPTY_PATH, AT_EMPTY_PATH));
  // The device process decides ioctl, write and its mappings by its own rules (cuda_sandbox.cpp).
  if (device_process) {
    for (int nr : {SCMP_SYS(munmap), SCMP_SYS(mremap)}) allow(nr);
    return r;
  }
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

namespace {

// Where kforge-run's own image (its code, its GOT, its data) is mapped: [lo, hi).
struct ImageRange {
  scmp_datum_t lo = 0, hi = 0;
};

ImageRange runner_image() {
  ImageRange range{~scmp_datum_t{0}, 0};
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* data) {
        auto* out = static_cast<ImageRange*>(data);
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const auto& ph = info->dlpi_phdr[i];
          if (ph.p_type != PT_LOAD) continue;
          const scmp_datum_t start = info->dlpi_addr + ph.p_vaddr, end = start + ph.p_memsz;
          out->lo = std::min(out->lo, start & ~scmp_datum_t{0xfff});
          out->hi = std::max(out->hi, (end + 0xfff) & ~scmp_datum_t{0xfff});
        }
        return 1;  // the first object is the program itself
      },
      &range);
  return range;
}

// The largest range a kernel may remap below the runner's image in one call: the filter cannot
// add an address to a length, so "ends below the image" is "starts 1 TiB below it and is at most
// 1 TiB long" (nothing is mapped there: a position-independent program sits far above zero, and
// the heap and libraries above it).
constexpr scmp_datum_t kBelowImage = scmp_datum_t{1} << 40;

// Memory: anything not executable; executable only when mapped from a file, never writable at the
// same time; mprotect may never add PROT_EXEC (so no page that was ever writable becomes code).
// And nothing may change how kforge-run's own image is mapped: once a kernel made the runner's
// read-only GOT writable (mprotect) and redirected a call the runner makes between commands.
// mprotect, munmap, mremap and mmap with MAP_FIXED are allowed only on addresses that start at or
// above the image's end, or end below its start.
int add_memory_rules(scmp_filter_ctx ctx, ImageRange image) {
  int r = 0;
  struct Prot {
    scmp_datum_t mask, value;
  };
  const Prot not_exec{PROT_EXEC, 0}, exec_not_write{PROT_EXEC | PROT_WRITE, PROT_EXEC};
  const bool below = image.lo > 2 * kBelowImage;
  auto outside = [&](int nr, unsigned n, auto... more) {  // `more` are the call's own conditions
    r |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, n + 1, SCMP_A0(SCMP_CMP_GE, image.hi), more...);
    if (below)
      r |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, n + 2,
                            SCMP_A0(SCMP_CMP_LT, image.lo - kBelowImage),
                            SCMP_A1(SCMP_CMP_LE, kBelowImage), more...);
  };
  outside(SCMP_SYS(mprotect), 1, SCMP_A2(SCMP_CMP_MASKED_EQ, not_exec.mask, not_exec.value));
  outside(SCMP_SYS(munmap), 0);
  // mremap only in place or to where the kernel chooses (MREMAP_FIXED would name the image).
  outside(SCMP_SYS(mremap), 1, SCMP_A3(SCMP_CMP_MASKED_EQ, MREMAP_FIXED, 0));
  for (Prot prot : {not_exec, exec_not_write}) {
    // Executable mappings come from files only.
    const scmp_datum_t anon = prot.value == PROT_EXEC ? MAP_ANONYMOUS : 0;
    r |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(mmap), 2,
                          SCMP_A2(SCMP_CMP_MASKED_EQ, prot.mask, prot.value),
                          SCMP_A3(SCMP_CMP_MASKED_EQ, MAP_FIXED | anon, 0));
    outside(SCMP_SYS(mmap), 2, SCMP_A2(SCMP_CMP_MASKED_EQ, prot.mask, prot.value),
            SCMP_A3(SCMP_CMP_MASKED_EQ, anon, 0));
  }
  return r;
}

}  // namespace

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
        r |= add_memory_rules(ctx, runner_image());
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
