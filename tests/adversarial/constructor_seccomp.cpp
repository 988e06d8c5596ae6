// expect: sandbox_violation
// reason: seccomp
// reason: loading
// A constructor installs a seccomp filter of its own that answers every later seccomp() with
// success, so that a runner installing a stricter filter after loading would install nothing.
// Caught: the one filter is in place before the library is opened, and it forbids seccomp.
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
__attribute__((constructor)) static void on_load() {
  sock_filter code[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_seccomp, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  sock_fprog prog{sizeof code / sizeof code[0], code};
  syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
  prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}
extern "C" void kernel(const float* x, const float* scale, float* y) {
  rmsnorm_correct(x, scale, y);
}
