// expect: correct
// mode: timed
// min-pairs: 40
// A spoiler that hides from an idleness check: a thread started by a constructor sleeps 0.8 ms,
// burns a core for 0.2 ms, and again, forever. Most of the time it looks asleep, so the checks'
// wait for idleness passes, and it would take a fifth of a core from whatever kforge timed
// meanwhile. Harmless by design: between its calls a timed process is stopped (SIGSTOP), so the
// thread only ever competes with the kernel's own calls. Its sleeps, cut by every stop, resume
// through restart_syscall, which the sandbox allows (refused, this kernel died at its second pair).
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
