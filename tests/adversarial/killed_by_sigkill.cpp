// expect: runtime_error
// reason: signal 9 (SIGKILL) during check set 1
// reason-lacks: out of memory?
// Dies by SIGKILL mid-call, as a runner does when someone runs kill -9 on it. Caught: a runtime
// error that names the signal as it was, without guessing a cause.
#include <csignal>
extern "C" void kernel(const float* x, const float* scale, float* y) {
  std::raise(SIGKILL);
  rmsnorm_correct(x, scale, y);
}
