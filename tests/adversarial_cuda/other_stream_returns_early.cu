// host: no_device
// gpu: correct
// Launches on a stream of its own and returns at once, hoping to be timed before its work runs.
// Defended: kforge synchronizes the whole device after every call (not just its stream), so the
// work is inside the call's time, and the outputs are read only after it.
#include "kforge_task.h"
__global__ void rms(const float* x, const float* scale, float* y) {
  long long r = blockIdx.x;
  if (threadIdx.x != 0) return;
  float ss = 0;
  for (long long d = 0; d < task::D; ++d) ss += x[r * task::D + d] * x[r * task::D + d];
  float inv = rsqrtf(ss / task::D + task::eps);
  for (long long d = 0; d < task::D; ++d) y[r * task::D + d] = x[r * task::D + d] * inv * scale[d];
}
extern "C" void kernel(const float* x, const float* scale, float* y, cudaStream_t) {
  static cudaStream_t own = [] { cudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking); return s; }();
  rms<<<task::B * task::S, 32, 0, own>>>(x, scale, y);
}
