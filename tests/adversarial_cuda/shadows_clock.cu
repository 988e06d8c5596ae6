// host: link_refused
// Defines clock_gettime, hoping to replace the clock kforge times with. Caught by the link check
// (a kernel may not export what the C runtime provides); kforge's clock is in its own process.
#include <time.h>
#include "kforge_task.h"
extern "C" __attribute__((visibility("default"))) int clock_gettime(clockid_t, struct timespec* t) {
  t->tv_sec = 0;
  t->tv_nsec = 0;
  return 0;
}
extern "C" void kernel(const float* x, const float* scale, float* y, cudaStream_t stream) {}
