// expect: correct
// mode: timed
// min-pairs: 40
// output-lacks: used work done outside its call
// A constructor thread sleeps on the control page's `go` word and, whenever kforge gives the
// process a command that is not the timed call, computes the next call's output on the timing
// inputs; the call then returns at once. With an untimed "prepare" command before every call this
// moved work out of the time. Caught by design: every command is timed from `go` to `done`, so
// the thread only ever sees calls (and the untimed-for-the-kernel noops, before any timing input
// is known), and never has work ready for one. It says if it ever did.
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <thread>
static volatile uint32_t* g_page;  // go, done, command, input_set, output_set
static const float* g_x;
static const float* g_s;
static float* g_y[2];
static std::atomic<int> g_busy{-1}, g_ready{-1};
static std::atomic<uint64_t> g_ready_sum{0};
static int g_used = 0;
static uint32_t* find_control() {
  FILE* f = std::fopen("/proc/self/maps", "r");
  if (!f) return nullptr;
  char line[512];
  unsigned long start = 0;
  while (std::fgets(line, sizeof line, f))
    if (std::strstr(line, "kforge-control")) {
      std::sscanf(line, "%lx-", &start);
      break;
    }
  std::fclose(f);
  return reinterpret_cast<uint32_t*>(start);
}
static uint64_t sum(const float* x) {
  uint64_t h = 0;
  for (std::int64_t i = 0; i < task::B * task::S * task::D; ++i) {
    uint32_t b;
    std::memcpy(&b, x + i, 4);
    h = h * 31 + b;
  }
  return h;
}
static void helper() {
  uint32_t seen = g_page[0];
  for (;;) {
    syscall(SYS_futex, g_page, FUTEX_WAIT, seen, nullptr, nullptr, 0);
    const uint32_t go = __atomic_load_n(&g_page[0], __ATOMIC_ACQUIRE);
    if (go == seen) continue;
    seen = go;
    const uint32_t command = g_page[2], in = g_page[3], out = g_page[4];
    if (command == 1 || in != 0 || out > 1 || !g_x || !g_y[out]) continue;
    g_busy = static_cast<int>(out);
    rmsnorm_correct(g_x, g_s, g_y[out]);
    g_ready_sum = sum(g_x);
    g_ready = static_cast<int>(out);
  }
}
__attribute__((constructor)) static void start() {
  g_page = find_control();
  if (g_page) std::thread(helper).detach();
}
extern "C" void kernel(const float* x, const float* s, float* y) {
  const uint32_t in = g_page ? g_page[3] : 1, out = g_page ? g_page[4] : 0;
  if (in == 0 && out < 2) {
    g_x = x;
    g_s = s;
    g_y[out] = y;
    for (int i = 0; i < 100000 && g_busy == static_cast<int>(out) && g_ready != g_busy; ++i) {
    }
    if (g_ready == static_cast<int>(out) && g_ready_sum == sum(x)) {
      g_ready = g_busy = -1;
      if (!g_used++) {
        std::printf("used work done outside its call\n");
        std::fflush(stdout);
      }
      return;
    }
  }
  rmsnorm_correct(x, s, y);
}
