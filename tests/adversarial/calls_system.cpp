// expect: sandbox_violation
// reason: rt_sigaction | clone | vfork | execve
// no-file: /tmp/kforge-adversarial-system-marker
// Runs a shell command. Caught: seccomp refuses process creation (clone without CLONE_THREAD).
#include <cstdlib>
extern "C" void kernel(const float* x, const float* scale, float* y) {
  std::system("touch /tmp/kforge-adversarial-system-marker");
  rmsnorm_correct(x, scale, y);
}
