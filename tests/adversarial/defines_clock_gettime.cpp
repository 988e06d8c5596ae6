// expect: link_refused
// reason: clock_gettime
// Replaces clock_gettime so that timers see time stand still. Caught by the link check: a kernel
// may not export a symbol of the C runtime.
#include <time.h>
extern "C" __attribute__((visibility("default"))) int clock_gettime(clockid_t,
                                                                    struct timespec* ts) {
  ts->tv_sec = 0;
  ts->tv_nsec = 0;
  return 0;
}
extern "C" void kernel(const float* x, const float* scale, float* y) {
  rmsnorm_correct(x, scale, y);
}
