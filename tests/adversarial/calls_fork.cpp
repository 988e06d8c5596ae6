// expect: sandbox_violation
// reason: clone | fork
// no-file: /tmp/kforge-adversarial-fork-marker
// Forks a child that would outlive the evaluation. Caught: seccomp refuses fork.
#include <fcntl.h>
#include <unistd.h>
extern "C" void kernel(const float* x, const float* scale, float* y) {
  if (fork() == 0) {
    close(open("/tmp/kforge-adversarial-fork-marker", O_CREAT | O_WRONLY, 0644));
    _exit(0);
  }
  rmsnorm_correct(x, scale, y);
}
