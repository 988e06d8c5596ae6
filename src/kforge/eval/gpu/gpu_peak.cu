// kforge-gpu-peak: the peaks of the first CUDA device, measured (not taken from a datasheet):
// FP32 FMA throughput, tensor-core throughput through mma.sync (WMMA: FP16 and TF32 inputs, FP32
// accumulation: what a kernel written with WMMA or mma.sync can reach; Hopper's wgmma goes
// further; each loop's result checked against the one due, else the figure is not given), and
// memory bandwidth (a streaming copy much larger than L2). Trusted code of kforge's:
// compiled by `kforge hw --target cuda` with nvcc and timed with CUDA events, best of 5 runs.
// Prints one JSON object on stdout.
#include <cuda_runtime.h>
#include <mma.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace {

constexpr int kChains = 8, kIters = 4096, kThreads = 256;

__global__ void fma_loop(float* out, float seed) {
  float a[kChains];
  for (int c = 0; c < kChains; ++c) a[c] = seed + threadIdx.x + c;
  for (int i = 0; i < kIters; ++i)
    for (int c = 0; c < kChains; ++c) a[c] = fmaf(a[c], 0.999999f, 1e-7f);
  float s = 0;
  for (int c = 0; c < kChains; ++c) s += a[c];
  if (s == 12345.678f) out[0] = s;  // keeps the loop alive
}

// Each warp multiplies fragments loaded from memory (the compiler cannot know their values) into
// four accumulators that start apart (so none is the same computation as another), and each thread
// writes the sum of its accumulators' elements: with every input 1/64 (exact in FP16 and TF32)
// each element gains K/4096 per mma, exactly, so the host knows what each thread must write, and a
// loop the compiler shortened or merged cannot write it.
constexpr int kAccumulators = 4;
constexpr float kOperand = 1.0f / 64;

template <typename In, typename Frag, int K>
__global__ void mma_loop(const In* operands, float* out) {
  using namespace nvcuda;
  wmma::fragment<wmma::matrix_a, 16, 16, K, Frag, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, K, Frag, wmma::col_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, K, float> acc[kAccumulators];
  wmma::load_matrix_sync(a, operands, K);
  wmma::load_matrix_sync(b, operands, K);
  for (int c = 0; c < kAccumulators; ++c) wmma::fill_fragment(acc[c], static_cast<float>(c));
  for (int i = 0; i < kIters; ++i)
    for (auto& c : acc) wmma::mma_sync(c, a, b, c);
  float s = 0;
  for (auto& c : acc)
    for (int e = 0; e < c.num_elements; ++e) s += c.x[e];
  out[blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x] = s;
}

// What every thread of mma_loop must write, and the elements each thread holds.
template <int K>
double mma_expected(int elements) {
  const double gained = static_cast<double>(kIters) * K * kOperand * kOperand;
  double sum = 0;
  for (int c = 0; c < kAccumulators; ++c) sum += elements * (c + gained);
  return sum;
}

__global__ void copy(const float4* __restrict__ in, float4* __restrict__ out, long long n) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    out[i] = in[i];
}

template <typename Launch>
float best_ms(Launch launch) {
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  launch();  // warm-up
  cudaDeviceSynchronize();
  float best = 1e30f;
  for (int run = 0; run < 5; ++run) {
    cudaEventRecord(start);
    launch();
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    best = std::min(best, ms);
  }
  return best;
}

// "" when every thread of the last mma_loop wrote `expected`; else what was found instead.
std::string wrong_sums(const float* sums, long long n, double expected) {
  std::vector<float> host(n);
  if (cudaMemcpy(host.data(), sums, n * sizeof(float), cudaMemcpyDeviceToHost) != cudaSuccess)
    return "tensor-core loop: its result could not be read back";
  for (long long i = 0; i < n; ++i)
    if (std::fabs(host[i] - expected) > 1e-5 * expected) {
      char why[200];
      std::snprintf(why, sizeof why,
                    "tensor-core loop computed %.6g where %.6g was due (thread %lld): its work was "
                    "not all done, so its time says nothing",
                    host[i], expected, i);
      return why;
    }
  return "";
}

}  // namespace

int main() {
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) {
    std::printf("{\"error\": \"%s\"}\n", cudaGetErrorString(cudaGetLastError()));
    return 1;
  }
  float* sink = nullptr;
  cudaMalloc(&sink, 64);
  const int blocks = p.multiProcessorCount * 8;
  const double threads = static_cast<double>(blocks) * kThreads;
  const float fma_ms = best_ms([&] { fma_loop<<<blocks, kThreads>>>(sink, 1.0f); });
  const double fma_gflops = 2.0 * kChains * kIters * threads / (fma_ms * 1e6);
  // One warp per 32 threads, 4 accumulators, each mma 16·16·K multiply-adds.
  const double warps = threads / 32;
  const long long n_threads = static_cast<long long>(blocks) * kThreads;
  float* sums = nullptr;
  cudaMalloc(&sums, n_threads * sizeof(float));
  half* f16_operands = nullptr;
  float* tf32_operands = nullptr;
  {
    std::vector<half> h(16 * 16, __float2half(kOperand));
    std::vector<float> f(16 * 16, kOperand);
    cudaMalloc(&f16_operands, h.size() * sizeof(half));
    cudaMalloc(&tf32_operands, f.size() * sizeof(float));
    cudaMemcpy(f16_operands, h.data(), h.size() * sizeof(half), cudaMemcpyHostToDevice);
    cudaMemcpy(tf32_operands, f.data(), f.size() * sizeof(float), cudaMemcpyHostToDevice);
  }
  std::string not_measured;
  const float f16_ms = best_ms(
      [&] { mma_loop<half, half, 16><<<blocks, kThreads>>>(f16_operands, sums); });
  double f16_gflops = 2.0 * 16 * 16 * 16 * kAccumulators * kIters * warps / (f16_ms * 1e6);
  if (auto why = wrong_sums(sums, n_threads,
                            mma_expected<16>(nvcuda::wmma::fragment<nvcuda::wmma::accumulator, 16,
                                                                     16, 16, float>::num_elements));
      !why.empty()) {
    not_measured += "\"tensor_f16_gflops\": \"FP16 " + why + "\"";
    f16_gflops = 0;
  }
  const float tf32_ms = best_ms([&] {
    mma_loop<float, nvcuda::wmma::precision::tf32, 8><<<blocks, kThreads>>>(tf32_operands, sums);
  });
  double tf32_gflops = 2.0 * 16 * 16 * 8 * kAccumulators * kIters * warps / (tf32_ms * 1e6);
  if (auto why = wrong_sums(sums, n_threads,
                            mma_expected<8>(nvcuda::wmma::fragment<nvcuda::wmma::accumulator, 16,
                                                                    16, 8, float>::num_elements));
      !why.empty()) {
    not_measured += std::string(not_measured.empty() ? "" : ", ") +
                    "\"tensor_tf32_gflops\": \"TF32 " + why + "\"";
    tf32_gflops = 0;
  }
  // 8× the L2, at least 1 GiB each way: the copy streams from memory.
  const long long bytes = std::max<long long>(1LL << 30, 8LL * p.l2CacheSize);
  float4 *in = nullptr, *out = nullptr;
  cudaMalloc(&in, bytes);
  cudaMalloc(&out, bytes);
  cudaMemset(in, 0, bytes);
  const long long n = bytes / 16;
  const float copy_ms = best_ms([&] { copy<<<p.multiProcessorCount * 16, 512>>>(in, out, n); });
  const double gbps = 2.0 * bytes / (copy_ms * 1e6);
  cudaError_t err = cudaGetLastError();
  std::printf(
      "{\"name\": \"%s\", \"sm\": \"sm_%d%d\", \"sms\": %d, \"memory_bytes\": %zu, \"l2_bytes\": "
      "%d, \"fp32_fma_gflops\": %.1f, \"tensor_f16_gflops\": %.1f, \"tensor_tf32_gflops\": %.1f, "
      "\"hbm_gbps\": %.1f, \"not_measured\": {%s}, \"error\": \"%s\"}\n",
      p.name, p.major, p.minor, p.multiProcessorCount, p.totalGlobalMem, p.l2CacheSize, fma_gflops,
      f16_gflops, tf32_gflops, gbps, not_measured.c_str(),
      err == cudaSuccess ? "" : cudaGetErrorString(err));
  return err == cudaSuccess ? 0 : 1;
}
