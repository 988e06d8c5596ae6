// expect: sandbox_violation | incorrect
// mode: timed
// min-pairs: 40
// warmup: 0
// audit-every: 1000000
// sample-lines: 8
// Once warm, returns at once and writes its answer from a detached thread 2 ms later. On a pair
// that is not audited, the lines drawn after the return still hold the poison when copied; they
// change later (or the comparison sees the poison).
#include <time.h>
#include <thread>
static long calls = 0;
extern "C" void kernel(const float* x, const float* scale, float* y) {
  if (++calls <= 20) return rmsnorm_correct(x, scale, y);
  std::thread([=] {
    timespec ts{0, 2000000};
    nanosleep(&ts, nullptr);
    rmsnorm_correct(x, scale, y);
  }).detach();
}
