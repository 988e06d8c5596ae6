// Helpers shared by the check and timing phases.
#include "kforge/runner/run_state.h"

#include <time.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "kforge/core/hash.h"

namespace kforge::runner {

std::vector<void*> RunState::args(const std::vector<GuardedBuffer>& inputs, const OutputSet& outputs) const {
  std::vector<void*> a;
  for (const auto& b : inputs) a.push_back(b.data);
  for (const auto& b : outputs.live) a.push_back(b.data);
  return a;
}

namespace {

template <typename T>
void fill_parallel(void* p, std::int64_t n, T value) {
  T* d = static_cast<T*>(p);
#pragma omp parallel for simd schedule(static) if (n > (1 << 16))
  for (std::int64_t i = 0; i < n; ++i) d[i] = value;
}

void copy_parallel(void* dst, const void* src, std::size_t bytes) {
  constexpr std::size_t kChunk = 1 << 20;
  const std::size_t chunks = (bytes + kChunk - 1) / kChunk;
#pragma omp parallel for schedule(static) if (chunks > 1)
  for (std::size_t c = 0; c < chunks; ++c)
    std::memcpy(static_cast<char*>(dst) + c * kChunk, static_cast<const char*>(src) + c * kChunk, std::min(kChunk, bytes - c * kChunk));
}

}  // namespace

void poison(const SandboxSetup& setup, OutputSet& outputs) {
  for (std::size_t i = 0; i < outputs.live.size(); ++i) {
    const auto& t = setup.outputs[i];
    void* p = outputs.live[i].data;
    switch (t.dtype) {
      case core::DType::f32: fill_parallel(p, t.numel, std::numeric_limits<float>::quiet_NaN()); break;
      case core::DType::f64: fill_parallel(p, t.numel, std::numeric_limits<double>::quiet_NaN()); break;
      case core::DType::i32: fill_parallel(p, t.numel, std::int32_t{-0x5a5a5a5b}); break;
      case core::DType::i64: fill_parallel(p, t.numel, std::int64_t{-0x5a5a5a5a5a5a5a5bLL}); break;
    }
  }
}

void take_snapshot(OutputSet& outputs) {
  outputs.snapshot.resize(outputs.live.size());
  for (std::size_t i = 0; i < outputs.live.size(); ++i) {
    auto& s = outputs.snapshot[i];
    s.resize(outputs.live[i].bytes);
    copy_parallel(s.data(), outputs.live[i].data, s.size());
  }
}

std::uint64_t hash_inputs(const std::vector<GuardedBuffer>& inputs) {
  std::uint64_t h = 0;
  for (const auto& b : inputs) h = core::hash64_parallel(b.data, b.bytes, h);
  return h;
}

int thread_count(int proc_stat_fd) {
  if (proc_stat_fd < 0) return -1;
  char buf[1024];
  ssize_t n = pread(proc_stat_fd, buf, sizeof buf - 1, 0);
  if (n <= 0) return -1;
  buf[n] = 0;
  // Fields after the command name (which may hold spaces) start after the last ')':
  // state(3) ... num_threads is field 20, the 18th after ')'.
  char* p = std::strrchr(buf, ')');
  if (!p) return -1;
  int field = 2;
  for (++p; *p && field < 20; ++p)
    if (*p == ' ') ++field;
  return std::atoi(p);
}

namespace {

double cpu_ms() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

void sleep_ms(int ms) {
  timespec ts{0, ms * 1000000L};
  while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) != 0) {
  }
}

}  // namespace

double idle_cpu_ms() {
  sleep_ms(10);  // OpenMP workers spin briefly after a parallel region; let them settle
  double before = cpu_ms();
  sleep_ms(30);
  return cpu_ms() - before;
}

double now_seconds() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + ts.tv_nsec * 1e-9;
}

}  // namespace kforge::runner
