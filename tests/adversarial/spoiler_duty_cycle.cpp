// expect: sandbox_violation
// mode: timed
// reason: ms of CPU | kept using CPU | kept running
// A spoiler that hides from an idleness check: a thread started by a constructor sleeps 0.8 ms,
// burns a core for 0.2 ms, and again, forever. Most of the time it looks asleep, so a check at one
// moment (or a short window) passes, yet it takes a fifth of a core from whatever kforge times
// meanwhile. Caught: kforge reads the process's CPU clock from outside over every window between
// its return and its next call, and over the whole timing.
#include <time.h>
#include <thread>
static double now_ms() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}
__attribute__((constructor)) static void on_load() {
  std::thread([] {
    for (;;) {
      timespec nap{0, 800000};
      nanosleep(&nap, nullptr);
      volatile unsigned long spin = 0;
      for (double end = now_ms() + 0.2; now_ms() < end;) spin = spin + 1;
    }
  }).detach();
}
extern "C" void kernel(const float* x, const float* scale, float* y) {
  rmsnorm_correct(x, scale, y);
}
