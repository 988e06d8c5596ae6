// kforge-peak: measures this machine's attainable peaks as candidates compiled here with
// -march=native reach them: f32 FMA throughput on one core and on all, and STREAM-triad
// bandwidth, with the widest vector instruction set this CPU runs (peak_isa.h: chosen at run
// time, so the release itself needs only x86-64-v2); also reports OpenBLAS's core type. Prints one
// JSON object. Run by `kforge hw`.
//
//   kforge-peak [--isa avx512|avx2|sse2]   measure (default: the widest this machine runs)
//   kforge-peak --list-isa                 which paths this machine runs, measuring nothing
#include <dlfcn.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <vector>

#include "kforge/eval/peak_isa.h"

namespace {

using kforge::peak_isa::Isa;

double seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double fma_gflops(const Isa& isa, int threads) {
  const long iters = 20'000'000;
  double best = 0;
  volatile float sink = 0;
  for (int rep = 0; rep < 7; ++rep) {  // the best of several: peaks are what the machine can reach
    double t0 = seconds();
#pragma omp parallel num_threads(threads)
    { sink = sink + isa.fma_chains(iters, static_cast<float>(omp_get_thread_num())); }
    double t = seconds() - t0;
    best = std::max(best, 2.0 * 12 * isa.lanes * iters * threads / t / 1e9);
  }
  return best;
}

// Thread t's contiguous share of n elements: the same for first touch and for every pass, so each
// thread streams the pages it placed.
void share(std::size_t n, std::size_t& begin, std::size_t& end) {
  const std::size_t threads = static_cast<std::size_t>(omp_get_num_threads());
  const std::size_t t = static_cast<std::size_t>(omp_get_thread_num());
  const std::size_t chunk = (n + threads - 1) / threads;
  begin = std::min(n, t * chunk);
  end = std::min(n, begin + chunk);
}

double triad_gbps(const Isa& isa, int threads) {
  const std::size_t n = 32u << 20;  // 3 arrays x 128 MiB: far beyond any last-level cache
  float* a = static_cast<float*>(std::aligned_alloc(64, n * 4));
  float* b = static_cast<float*>(std::aligned_alloc(64, n * 4));
  float* c = static_cast<float*>(std::aligned_alloc(64, n * 4));
#pragma omp parallel num_threads(threads)
  {
    std::size_t begin, end;
    share(n, begin, end);
    for (std::size_t i = begin; i < end; ++i) {
      a[i] = 0;
      b[i] = 1;
      c[i] = 2;
    }
  }
  double best = 0;
  for (int rep = 0; rep < 12; ++rep) {
    double t0 = seconds();
#pragma omp parallel num_threads(threads)
    {
      std::size_t begin, end;
      share(n, begin, end);
      isa.triad(a, b, c, begin, end);
    }
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

// {"isa_widest":"avx2","isa_supported":["avx2","sse2"]}
void list_isas() {
  std::printf("{\"isa_widest\":\"%s\",\"isa_supported\":[", kforge::peak_isa::widest().name);
  const char* sep = "";
  for (const auto& isa : kforge::peak_isa::all())
    if (isa.supported()) {
      std::printf("%s\"%s\"", sep, isa.name);
      sep = ",";
    }
  std::printf("]}\n");
}

}  // namespace

int main(int argc, char** argv) {
  const Isa* isa = &kforge::peak_isa::widest();
  if (argc == 2 && std::string_view(argv[1]) == "--list-isa") {
    list_isas();
    return 0;
  }
  if (argc == 3 && std::string_view(argv[1]) == "--isa") {
    isa = kforge::peak_isa::find_supported(argv[2]);
    if (!isa) {
      std::fprintf(stderr, "kforge-peak: this machine does not run '%s' (--list-isa says which)\n",
                   argv[2]);
      return 2;
    }
  } else if (argc != 1) {
    std::fprintf(stderr, "usage: kforge-peak [--isa avx512|avx2|sse2] | --list-isa\n");
    return 2;
  }
  int cores = omp_get_num_procs();
  char core[128], config[256];
  openblas_info(core, sizeof core, config, sizeof config);
  double f1 = fma_gflops(*isa, 1), fall = fma_gflops(*isa, cores);
  double t1 = triad_gbps(*isa, 1), tall = triad_gbps(*isa, cores);
  const char* env_core =
      std::getenv("OPENBLAS_CORETYPE");  // a child reporting what it was started with
  std::printf(
      "{\"isa_used\":\"%s\",\"isa_widest\":\"%s\",\"threads\":%d,\"fma_gflops_1\":%.2f,"
      "\"fma_gflops_all\":%.2f,\"triad_gbps_1\":%.2f,\"triad_gbps_all\":%.2f,"
      "\"openblas_core\":\"%s\",\"openblas_config\":\"%s\",\"openblas_coretype_env\":\"%s\"}\n",
      isa->name, kforge::peak_isa::widest().name, cores, f1, fall, t1, tall, core, config,
      env_core ? env_core : "");
  return 0;
}
