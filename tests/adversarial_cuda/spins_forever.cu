// host: no_device
// gpu: timeout
// Never finishes. Caught: the watchdog kills the kernel's process (and with it its context) when
// the call overruns --timeout. The store is volatile so the loop survives the compiler: the
// earlier spin on a volatile local compiled to one store and EXIT (sm_90 SASS), so on the H200 it
// finished at once and was rightly `incorrect`, not a kernel that never finishes.
#include "kforge_task.h"
__global__ void spin(float* y) {
  volatile float* out = y;
  for (;;) out[0] = 0.0f;
}
extern "C" void kernel(const float* x, const float* scale, float* y, cudaStream_t stream) {
  spin<<<1, 1, 0, stream>>>(y);
}
