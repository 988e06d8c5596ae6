// expect: sandbox_violation
// reason: kill
// Tries to kill kforge itself. Caught: seccomp allows signals only to the runner's own threads.
#include <signal.h>
#include <unistd.h>
extern "C" void kernel(const float* x, const float* scale, float* y) {
  kill(getppid(), SIGKILL);
  rmsnorm_correct(x, scale, y);
}
