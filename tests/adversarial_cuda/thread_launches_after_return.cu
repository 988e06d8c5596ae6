// host: no_device
// gpu: sandbox_violation
// Returns at once; a host thread of its own launches the (correct) work 0.3 ms later, so the
// device is idle when the call's synchronization runs and the work lands while kforge reads the
// outputs. On the H200 this was judged correct and timed at 0.086 ms for 1.27 ms of work.
// Defended: the outputs are peeked the instant the call returns (on a stream that waits for
// nothing the kernel launched), the device is synchronized again after a settle window, and the
// outputs must read the same: they changed, so the work ran outside the call.
#include <thread>
#include <unistd.h>
#include "kforge_task.h"
__global__ void rms(const float* x, const float* scale, float* y) {
  long long r = blockIdx.x;
  if (threadIdx.x != 0) return;
  float ss = 0;
  for (long long d = 0; d < task::D; ++d) ss += x[r * task::D + d] * x[r * task::D + d];
  float inv = rsqrtf(ss / task::D + task::eps);
  for (long long d = 0; d < task::D; ++d) y[r * task::D + d] = x[r * task::D + d] * inv * scale[d];
}
extern "C" void kernel(const float* x, const float* scale, float* y, cudaStream_t stream) {
  std::thread([=] {
    usleep(300);
    rms<<<task::B * task::S, 32, 0, stream>>>(x, scale, y);
  }).detach();
}
