// Async-signal-safe fault classification: fixed tables, hand-rolled formatting, write(2).
#include "kforge/runner/fault_report.h"

#include <sys/syscall.h>

#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>

#include "kforge/runner/control_page.h"
#include "kforge/runner/sandbox.h"

namespace kforge::runner {
namespace {

// Why a call that is allowed in some forms was refused in this one (signal-safe: constants only).
const char* syscall_hint(long nr) {
  switch (nr) {
    case SYS_sched_setaffinity:
    case SYS_sched_getaffinity:
    case SYS_sched_getparam:
    case SYS_sched_getscheduler:
    case SYS_prlimit64:
    case SYS_tgkill:
      return " on another process or thread: a kernel may name only its own process (pid 0 or "
             "getpid()); setting limits is never allowed";
    case SYS_mprotect:
    case SYS_mmap:
    case SYS_munmap:
    case SYS_mremap:
      return ": executable memory comes only from the kernel's own file, and the runner's own "
             "image may not be remapped or unprotected";
    case SYS_madvise:
      return " with advice that reaches memory shared with kforge (MADV_REMOVE, MADV_COLD, "
             "MADV_PAGEOUT...)";
    default:
      return "";
  }
}

struct Region {
  RegionKind kind;
  char name[64];
  std::uintptr_t data_begin, data_end, guard_begin, guard_end;
};

constexpr int kMaxRegions = 256;
Region g_regions[kMaxRegions];
std::atomic<int> g_region_count{0};
int g_channel_fd = -1;
std::atomic<std::uint32_t>* g_done_word = nullptr;
const char* volatile g_phase = "setup";

// A tiny append-only formatter over a fixed buffer.
struct Out {
  char buf[1024];
  std::size_t n = 0;
  void str(const char* s) {
    while (*s && n < sizeof buf - 1) buf[n++] = *s++;
  }
  // JSON string contents: escape quotes and backslashes.
  void esc(const char* s) {
    for (; *s && n < sizeof buf - 2; ++s) {
      if (*s == '"' || *s == '\\') buf[n++] = '\\';
      buf[n++] = (*s >= 32) ? *s : '?';
    }
  }
  void dec(unsigned long long v) {
    char tmp[24];
    int i = 0;
    do tmp[i++] = static_cast<char>('0' + v % 10);
    while ((v /= 10) && i < 23);
    while (i && n < sizeof buf - 1) buf[n++] = tmp[--i];
  }
  void hex(unsigned long long v) {
    str("0x");
    char tmp[17];
    int i = 0;
    do tmp[i++] = "0123456789abcdef"[v & 15];
    while ((v >>= 4) && i < 16);
    while (i && n < sizeof buf - 1) buf[n++] = tmp[--i];
  }
};

const char* kind_name(RegionKind k) {
  switch (k) {
    case RegionKind::input:
      return "input";
    case RegionKind::output:
      return "output";
    case RegionKind::stack:
      return "stack";
  }
  return "?";
}

// The region whose guarded span holds `addr`. Buffers are exact and win over the
// slack below a thread stack: mmap places mappings top-down, so an input can sit
// right under a stack's guard and must not be mistaken for an overflow.
const Region* find_region(std::uintptr_t addr) {
  int count = g_region_count.load(std::memory_order_acquire);
  const Region* stack = nullptr;
  for (int i = 0; i < count; ++i) {
    const Region& r = g_regions[i];
    if (addr < r.guard_begin || addr >= r.guard_end) continue;
    if (r.kind != RegionKind::stack) return &r;
    if (!stack) stack = &r;
  }
  return stack;
}

// Describes where `addr` falls; returns the category for the verdict.
const char* classify(std::uintptr_t addr, int code, Out& detail) {
  if (const Region* found = find_region(addr)) {
    const Region& r = *found;
    if (r.kind == RegionKind::stack) {
      detail.str(
          "the stack of a kernel thread overflowed (unbounded recursion or a huge local array)");
      return "stack_overflow";
    }
    if (addr >= r.data_end) {
      detail.str("access ");
      detail.dec(addr - r.data_end);
      detail.str(" bytes past the end of ");
      detail.str(kind_name(r.kind));
      detail.str(" '");
      detail.esc(r.name);
      detail.str("' (out of bounds)");
      return "out_of_bounds";
    }
    if (addr < r.data_begin) {
      detail.str("access ");
      detail.dec(r.data_begin - addr);
      detail.str(" bytes before the start of ");
      detail.str(kind_name(r.kind));
      detail.str(" '");
      detail.esc(r.name);
      detail.str("' (out of bounds)");
      return "out_of_bounds";
    }
    if (r.kind == RegionKind::input && code == SEGV_ACCERR) {
      detail.str("write to read-only input '");
      detail.esc(r.name);
      detail.str("' at element byte offset ");
      detail.dec(addr - r.data_begin);
      return "input_write";
    }
    detail.str("access inside ");
    detail.str(kind_name(r.kind));
    detail.str(" '");
    detail.esc(r.name);
    detail.str("' failed (was the mapping changed?)");
    return "remapped";
  }
  detail.str(addr < 4096 ? "null pointer dereference"
                         : "access to an address no kforge buffer owns (a wild pointer, or memory "
                           "that was freed)");
  return "wild";
}

}  // namespace

const char* describe_fault_address(std::uintptr_t addr, int si_code, char* detail,
                                   std::size_t size) {
  Out out;
  const char* category = classify(addr, si_code, out);
  std::size_t n = size ? std::min(out.n, size - 1) : 0;
  std::memcpy(detail, out.buf, n);
  if (size) detail[n] = 0;
  return category;
}

namespace {

void handler(int sig, siginfo_t* info, void*) {
  Out out, detail;
  const char* category = "crash";
  out.str("{\"op\":\"fault\",\"signal\":");
  out.dec(static_cast<unsigned>(sig));
  out.str(",\"phase\":\"");
  out.esc(g_phase);
  out.str("\"");
  if (sig == SIGSYS) {
    category = "syscall";
    detail.str("forbidden system call ");
    detail.str(syscall_name(info->si_syscall));
    detail.str(" (");
    detail.dec(static_cast<unsigned>(info->si_syscall));
    detail.str(")");
    detail.str(syscall_hint(info->si_syscall));
    out.str(",\"syscall\":\"");
    out.esc(syscall_name(info->si_syscall));
    out.str("\"");
  } else if (sig == SIGSEGV || sig == SIGBUS) {
    auto addr = reinterpret_cast<std::uintptr_t>(info->si_addr);
    category = classify(addr, info->si_code, detail);
    out.str(",\"address\":\"");
    out.hex(addr);
    out.str("\"");
  } else if (sig == SIGFPE) {
    detail.str(info->si_code == FPE_INTDIV ? "integer division by zero" : "arithmetic exception");
  } else if (sig == SIGILL) {
    detail.str(
        "illegal instruction (an instruction this CPU does not have, or a trap such as "
        "__builtin_trap)");
  }
  out.str(",\"category\":\"");
  out.str(category);
  out.str("\",\"detail\":\"");
  detail.buf[detail.n] = 0;
  out.esc(detail.buf);
  out.str("\"}");
  if (g_channel_fd >= 0) {
    // In a fault handler nothing can be done about a failed write: the parent sees the process
    // die either way, and reports the death without this detail.
    ssize_t ignored = write(g_channel_fd, out.buf, out.n);
    (void)ignored;
  }
  if (g_done_word) {
    g_done_word->store(kFaulted, std::memory_order_release);
    futex_wake_all(g_done_word);
  }
  _exit(128 + sig);
}

}  // namespace

void register_region(RegionKind kind, const char* name, std::uintptr_t data_begin,
                     std::uintptr_t data_end, std::uintptr_t guard_begin,
                     std::uintptr_t guard_end) {
  int i = g_region_count.load();
  if (i >= kMaxRegions) return;
  Region& r = g_regions[i];
  r.kind = kind;
  std::strncpy(r.name, name, sizeof r.name - 1);
  r.data_begin = data_begin;
  r.data_end = data_end;
  r.guard_begin = guard_begin;
  r.guard_end = guard_end;
  g_region_count.store(i + 1, std::memory_order_release);
}

void install_fault_handlers(int channel_fd, std::atomic<std::uint32_t>* done_word) {
  g_channel_fd = channel_fd;
  g_done_word = done_word;
  prepare_syscall_names();
  struct sigaction sa {};
  sa.sa_sigaction = handler;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGSYS}) sigaction(sig, &sa, nullptr);
}

void prepare_thread_for_faults() {
  const std::size_t size = 64 * 1024;
  void* stack = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (stack != MAP_FAILED) {
    stack_t ss{};
    ss.ss_sp = stack;
    ss.ss_size = size;
    sigaltstack(&ss, nullptr);
  }
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    void* base = nullptr;
    std::size_t stack_size = 0;
    std::size_t guard = 0;
    pthread_attr_getstack(&attr, &base, &stack_size);
    pthread_attr_getguardsize(&attr, &guard);
    pthread_attr_destroy(&attr);
    auto lo = reinterpret_cast<std::uintptr_t>(base);
    // The guard below the stack, plus a page of slack for the faulting frame.
    std::uintptr_t span = std::max<std::size_t>(guard, 4096) + 64 * 1024;
    register_region(RegionKind::stack, "thread stack", lo, lo + stack_size,
                    lo > span ? lo - span : 0, lo + 4096);
  }
}

void set_fault_phase(const char* phase) { g_phase = phase; }

}  // namespace kforge::runner
