// A spoiler that hides from an idleness check: a thread parked on a futex, woken by each return,
// sleeps 0.8 ms (the process looks idle), then burns a core for 2 ms, while kforge times the
// partner. Caught: kforge reads the process's CPU clock from outside over the whole window
// between its return and its next call.
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <atomic>
#include <thread>
#include <time.h>
static std::atomic<unsigned> returns{0};
static double now_ms() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}
__attribute__((constructor)) static void on_load() {
  std::thread([] {
    unsigned seen = 0;
    for (;;) {
      syscall(SYS_futex, reinterpret_cast<unsigned*>(&returns), FUTEX_WAIT_PRIVATE, seen, nullptr, nullptr, 0);
      seen = returns.load();
      timespec nap{0, 800000};
      nanosleep(&nap, nullptr);
      volatile unsigned long spin = 0;
      for (double end = now_ms() + 2.0; now_ms() < end;) spin = spin + 1;
    }
  }).detach();
}
extern "C" void kernel(const float* x, const float* scale, float* y) {
  rmsnorm_correct(x, scale, y);
  returns.fetch_add(1);
  syscall(SYS_futex, reinterpret_cast<unsigned*>(&returns), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
}
