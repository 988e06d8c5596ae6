// Causal flash attention in FP32: a block of 8 warps takes 8 consecutive queries of one (batch,
// head); each warp owns one query, its lanes 4 of the 128 dimensions of q and of the output. Keys
// and values stream through shared memory in tiles of 32 rows shared by the 8 warps; each score is
// a warp-wide dot product (shuffle reduction), and the softmax is online (running max and sum),
// so nothing of size S is ever stored. Keys past the query are skipped (the causal mask), whole
// tiles at a time where they can be.
#include "kforge_task.h"

namespace {

constexpr int kWarps = 8;
constexpr int kTile = 32;
static_assert(task::D == 128, "each lane holds 4 of 128 dimensions");

__device__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

__global__ void __launch_bounds__(kWarps * 32) attention(const float* __restrict__ q,
                                                         const float* __restrict__ k,
                                                         const float* __restrict__ v,
                                                         float* __restrict__ o) {
  using namespace task;
  __shared__ float4 ks[kTile][32], vs[kTile][32];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const long long bh = blockIdx.y;
  const long long first = static_cast<long long>(blockIdx.x) * kWarps;
  const long long i = first + warp;  // this warp's query
  const float4* qh = reinterpret_cast<const float4*>(q + bh * S * D);
  const float4* kh = reinterpret_cast<const float4*>(k + bh * S * D);
  const float4* vh = reinterpret_cast<const float4*>(v + bh * S * D);
  const float scale = rsqrtf(static_cast<float>(D));
  float4 qi = i < S ? qh[i * 32 + lane] : make_float4(0, 0, 0, 0);
  float4 acc = make_float4(0, 0, 0, 0);
  float m = -INFINITY, l = 0.0f;
  const long long last = min(first + kWarps, static_cast<long long>(S));  // keys 0..last-1
  for (long long t0 = 0; t0 < last; t0 += kTile) {
    __syncthreads();
    for (int r = warp; r < kTile; r += kWarps) {
      const long long j = t0 + r;
      ks[r][lane] = j < S ? kh[j * 32 + lane] : make_float4(0, 0, 0, 0);
      vs[r][lane] = j < S ? vh[j * 32 + lane] : make_float4(0, 0, 0, 0);
    }
    __syncthreads();
    if (i >= S) continue;
    const int keys = static_cast<int>(min(static_cast<long long>(kTile), i + 1 - t0));
    for (int r = 0; r < keys; ++r) {
      const float4 kk = ks[r][lane];
      const float s =
          warp_sum(qi.x * kk.x + qi.y * kk.y + qi.z * kk.z + qi.w * kk.w) * scale;
      const float m_new = fmaxf(m, s);
      const float correction = __expf(m - m_new), p = __expf(s - m_new);
      const float4 vv = vs[r][lane];
      acc = make_float4(acc.x * correction + p * vv.x, acc.y * correction + p * vv.y,
                        acc.z * correction + p * vv.z, acc.w * correction + p * vv.w);
      l = l * correction + p;
      m = m_new;
    }
  }
  if (i < S) {
    const float inv = 1.0f / l;
    reinterpret_cast<float4*>(o + bh * S * D)[i * 32 + lane] =
        make_float4(acc.x * inv, acc.y * inv, acc.z * inv, acc.w * inv);
  }
}

}  // namespace

extern "C" void kernel(const float* q, const float* k, const float* v, float* o,
                       cudaStream_t stream) {
  using namespace task;
  const dim3 grid(static_cast<unsigned>((S + kWarps - 1) / kWarps), static_cast<unsigned>(B * H));
  attention<<<grid, kWarps * 32, 0, stream>>>(q, k, v, o);
}
