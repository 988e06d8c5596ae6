// kforge-peak: measures this machine's attainable peaks with the flags candidates get
// (-O3 -march=native -fopenmp): f32 FMA throughput on one core and on all, and STREAM-triad
// bandwidth; also reports OpenBLAS's core type. Prints one JSON object. Run by `kforge hw`.
#include <dlfcn.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

#if defined(__AVX512F__)
constexpr int kLanes = 16;
const char* kIsa = "avx512";
#elif defined(__AVX__)
constexpr int kLanes = 8;
const char* kIsa = "avx2";
#else
constexpr int kLanes = 4;
const char* kIsa = "sse";
#endif
typedef float vec __attribute__((vector_size(kLanes * 4)));

double seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// 12 independent FMA chains: enough to cover FMA latency x throughput on current cores.
__attribute__((noinline)) float fma_chains(long iters, float seed) {
  vec a[12];
  vec m, c;
  for (int l = 0; l < kLanes; ++l) {
    m[l] = 0.999999f;
    c[l] = seed * 1e-7f;
  }
  for (int k = 0; k < 12; ++k)
    for (int l = 0; l < kLanes; ++l) a[k][l] = seed + k + l;
  for (long i = 0; i < iters; ++i) {
#pragma GCC unroll 12
    for (int k = 0; k < 12; ++k) a[k] = a[k] * m + c;
  }
  float s = 0;
  for (int k = 0; k < 12; ++k)
    for (int l = 0; l < kLanes; ++l) s += a[k][l];
  return s;
}

double fma_gflops(int threads) {
  const long iters = 20'000'000;
  double best = 0;
  volatile float sink = 0;
  for (int rep = 0; rep < 7; ++rep) {  // the best of several: peaks are what the machine can reach
    double t0 = seconds();
#pragma omp parallel num_threads(threads)
    { sink = sink + fma_chains(iters, static_cast<float>(omp_get_thread_num())); }
    double t = seconds() - t0;
    best = std::max(best, 2.0 * 12 * kLanes * iters * threads / t / 1e9);
  }
  return best;
}

double triad_gbps(int threads) {
  const std::size_t n = 32u << 20;  // 3 arrays x 128 MiB: far beyond any last-level cache
  float* a = static_cast<float*>(std::aligned_alloc(64, n * 4));
  float* b = static_cast<float*>(std::aligned_alloc(64, n * 4));
  float* c = static_cast<float*>(std::aligned_alloc(64, n * 4));
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::size_t i = 0; i < n; ++i) {
    a[i] = 0;
    b[i] = 1;
    c[i] = 2;
  }
  double best = 0;
  for (int rep = 0; rep < 12; ++rep) {
    double t0 = seconds();
#pragma omp parallel for num_threads(threads) schedule(static)
    for (std::size_t i = 0; i < n; ++i) a[i] = b[i] + 3.0f * c[i];
    double t = seconds() - t0;
    best = std::max(best, 3.0 * 4 * n / t / 1e9);  // STREAM counts 2 reads + 1 write
  }
  std::free(a);
  std::free(b);
  std::free(c);
  return best;
}

void openblas_info(char* core, std::size_t n, char* config, std::size_t m) {
  std::snprintf(core, n, "unavailable");
  std::snprintf(config, m, "unavailable");
  void* h = dlopen("libopenblas.so.0", RTLD_LAZY | RTLD_LOCAL);
  if (!h) return;
  using Name = char* (*)();
  if (auto f = reinterpret_cast<Name>(dlsym(h, "openblas_get_corename")))
    std::snprintf(core, n, "%s", f());
  if (auto f = reinterpret_cast<Name>(dlsym(h, "openblas_get_config")))
    std::snprintf(config, m, "%s", f());
}

}  // namespace

int main() {
  int cores = omp_get_num_procs();
  char core[128], config[256];
  openblas_info(core, sizeof core, config, sizeof config);
  double f1 = fma_gflops(1), fall = fma_gflops(cores);
  double t1 = triad_gbps(1), tall = triad_gbps(cores);
  const char* env_core =
      std::getenv("OPENBLAS_CORETYPE");  // a child reporting what it was started with
  std::printf(
      "{\"isa_used\":\"%s\",\"threads\":%d,\"fma_gflops_1\":%.2f,\"fma_gflops_all\":%.2f,\"triad_"
      "gbps_1\":%.2f,"
      "\"triad_gbps_all\":%.2f,\"openblas_core\":\"%s\",\"openblas_config\":\"%s\",\"openblas_"
      "coretype_env\":\"%s\"}\n",
      kIsa, cores, f1, fall, t1, tall, core, config, env_core ? env_core : "");
  return 0;
}
