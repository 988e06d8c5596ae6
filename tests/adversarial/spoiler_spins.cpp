// expect: sandbox_violation
// mode: timed
// reason: ms of CPU | kept using CPU | kept running
// Starts a thread from a constructor (before any call, so before any thread count) that burns a
// core forever: it would slow the partner whenever the partner runs. Caught at the checks: after
// each of their calls kforge waits for the process to go idle, reading its CPU clock from outside
// (in the timing it is stopped between its calls, so it could only slow itself).
#include <thread>
__attribute__((constructor)) static void on_load() {
  std::thread([] {
    volatile unsigned long spin = 0;
    for (;;) spin = spin + 1;
  }).detach();
}
extern "C" void kernel(const float* x, const float* scale, float* y) {
  rmsnorm_correct(x, scale, y);
}
