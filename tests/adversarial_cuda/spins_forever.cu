// host: no_device
// gpu: timeout
// Never finishes. Caught: the watchdog kills the kernel's process (and with it its context) when
// the call overruns --timeout.
#include "kforge_task.h"
__global__ void spin(float* y) {
  volatile int forever = 1;
  while (forever) y[0] = 0.0f;
}
extern "C" void kernel(const float* x, const float* scale, float* y, cudaStream_t stream) {
  spin<<<1, 1, 0, stream>>>(y);
}
