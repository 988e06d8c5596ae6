// expect: sandbox_violation
// explicit: TouchesAnotherProcess (one case per call, TOUCH defined)
// Names a process other than its own in each call that takes a pid: the partner's threads pinned
// onto one CPU once slowed it 8x and the kernel stayed `correct`. TOUCH selects the call (the test
// defines it); the target is kforge itself (getppid()), every call harmless had it been allowed.
// Caught: the filter allows these calls on pid 0 or the process's own pid only, else it traps.
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>
#include <cstdio>
static void touch(int which) {
  const pid_t other = getppid();
  cpu_set_t all;
  CPU_ZERO(&all);
  for (int c = 0; c < CPU_SETSIZE; ++c) CPU_SET(c, &all);
  sched_param param{};
  rlimit lim{};
  char buf[8], dst[8];
  iovec local{dst, sizeof dst}, remote{buf, sizeof buf};
  switch (which) {
    case 0:
      syscall(SYS_sched_setaffinity, other, sizeof all, &all);
      break;
    case 1:
      syscall(SYS_sched_getaffinity, other, sizeof all, &all);
      break;
    case 2:
      syscall(SYS_sched_getparam, other, &param);
      break;
    case 3:
      syscall(SYS_sched_getscheduler, other);
      break;
    case 4:
      syscall(SYS_prlimit64, other, RLIMIT_NOFILE, nullptr, &lim);
      break;
    case 5:
      syscall(SYS_tgkill, other, other, 0);
      break;
    case 6:
      syscall(SYS_kill, other, 0);
      break;
    case 7:
      syscall(SYS_setpriority, PRIO_PROCESS, other, 0);
      break;
    case 8:
      syscall(SYS_sched_setscheduler, other, SCHED_OTHER, &param);
      break;
    case 9:
      syscall(SYS_pidfd_open, other, 0);
      break;
    case 10:
      syscall(SYS_ptrace, 1 /* PTRACE_PEEKDATA */, other, buf, nullptr);
      break;
    case 11:
      syscall(SYS_process_vm_readv, other, &local, 1, &remote, 1, 0);
      break;
    case 12:
      syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, &lim, nullptr);
      break;  // set its own
    default:
      break;
  }
  std::printf("touched=%d\n", which);
  std::fflush(stdout);
}
extern "C" void kernel(const float* x, const float* scale, float* y) {
  touch(TOUCH);
  rmsnorm_correct(x, scale, y);
}
