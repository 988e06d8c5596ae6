// host: no_device
// gpu: input_modified
// Uses its input as scratch space. Caught: kforge reads every input back after the call and
// compares it byte for byte with what it uploaded.
#include "kforge_task.h"
__global__ void scribble(float* x, const float* scale, float* y) {
  long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < task::x_numel) { y[i] = x[i] * scale[i % task::D]; x[i] = 0.0f; }
}
extern "C" void kernel(const float* x, const float* scale, float* y, cudaStream_t stream) {
  scribble<<<(task::x_numel + 255) / 256, 256, 0, stream>>>(const_cast<float*>(x), scale, y);
}
