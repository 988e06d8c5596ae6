// expect: sandbox_violation
// reason: execve
// no-file: /tmp/kforge-adversarial-exec-marker
// Replaces the process with a shell. Caught: seccomp refuses execve.
#include <unistd.h>
extern "C" void kernel(const float* x, const float* scale, float* y) {
  execl("/bin/sh", "sh", "-c", "touch /tmp/kforge-adversarial-exec-marker", (char*)nullptr);
  rmsnorm_correct(x, scale, y);
}
