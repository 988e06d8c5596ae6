// expect: sandbox_violation
// reason: control page
// reason-lacks: out-of-memory
// Writes the runner's "this call crashed" mark into the control page's `done` word during a check
// call, then returns normally, as if a fault report were on its way. Caught: a mark with no report
// from a process that lives on is the kernel writing the control page, a sandbox violation (it
// once read as "SIGKILL by another process or the OOM killer").
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <cstdio>
#include <cstring>
extern "C" void kernel(const float* x, const float* scale, float* y) {
  static volatile uint32_t* page = [] {
    FILE* f = std::fopen("/proc/self/maps", "r");
    char line[512];
    unsigned long start = 0;
    while (f && std::fgets(line, sizeof line, f))
      if (std::strstr(line, "kforge-control")) {
        std::sscanf(line, "%lx-", &start);
        break;
      }
    if (f) std::fclose(f);
    return reinterpret_cast<volatile uint32_t*>(start);
  }();
  rmsnorm_correct(x, scale, y);
  if (!page) return;
  page[1] = 0xffffffffu;  // what the runner's fault handler writes after its report
  syscall(SYS_futex, page + 1, FUTEX_WAKE, 1 << 30, nullptr, nullptr, 0);
  usleep(300000);  // and lives on, where a crashed process would have ended
}
