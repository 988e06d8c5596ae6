// host: no_device
// gpu: runtime_error
// Writes far past the end of its output. Caught: the device faults (an illegal address) and the
// synchronization after the call reports it; compute-sanitizer memcheck, where installed, also
// catches writes that land in other allocations.
#include "kforge_task.h"
__global__ void past_end(float* y) { y[task::y_numel + (1LL << 32)] = 1.0f; }
extern "C" void kernel(const float* x, const float* scale, float* y, cudaStream_t stream) {
  past_end<<<1, 1, 0, stream>>>(y);
}
