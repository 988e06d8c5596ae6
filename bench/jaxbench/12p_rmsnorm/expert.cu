// RMSNorm: one block per row, each thread reading float4s (D is a multiple of 4 at every size),
// the sum of squares reduced with warp shuffles then across warps in shared memory, the row read
// a second time from L2 (a row is at most 32 KiB) for the scaling pass. Memory-bound: one read
// of x from HBM, one write of y.
#include "kforge_task.h"

namespace {

constexpr int kThreads = 256;
static_assert(task::D % 4 == 0, "rows are read as float4");

__device__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

__global__ void __launch_bounds__(kThreads) rmsnorm(const float4* __restrict__ x,
                                                    const float4* __restrict__ scale,
                                                    float4* __restrict__ y) {
  constexpr int kVec = task::D / 4;
  const float4* row = x + static_cast<long long>(blockIdx.x) * kVec;
  float4* out = y + static_cast<long long>(blockIdx.x) * kVec;
  float ss = 0.0f;
  for (int i = threadIdx.x; i < kVec; i += kThreads) {
    const float4 v = row[i];
    ss += v.x * v.x + v.y * v.y + v.z * v.z + v.w * v.w;
  }
  __shared__ float partial[kThreads / 32];
  ss = warp_sum(ss);
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = ss;
  __syncthreads();
  if (threadIdx.x < 32) {
    float t = threadIdx.x < kThreads / 32 ? partial[threadIdx.x] : 0.0f;
    t = warp_sum(t);
    if (threadIdx.x == 0) partial[0] = t;
  }
  __syncthreads();
  const float inv = rsqrtf(partial[0] / static_cast<float>(task::D) + task::eps);
  for (int i = threadIdx.x; i < kVec; i += kThreads) {
    const float4 v = row[i], s = scale[i];
    out[i] = make_float4(v.x * inv * s.x, v.y * inv * s.y, v.z * inv * s.z, v.w * inv * s.w);
  }
}

}  // namespace

extern "C" void kernel(const float* x, const float* scale, float* y, cudaStream_t stream) {
  using namespace task;
  rmsnorm<<<static_cast<unsigned>(B * S), kThreads, 0, stream>>>(
      reinterpret_cast<const float4*>(x), reinterpret_cast<const float4*>(scale),
      reinterpret_cast<float4*>(y));
}
