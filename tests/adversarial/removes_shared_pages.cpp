// expect: sandbox_violation
// reason: madvise
// Frees the pages of a shared file with madvise(MADV_REMOVE): on output pages both sides mapped
// this once made the partner 1.9x slower. Caught twice over: each side now maps only its own
// output sets, and the filter allows only the advice that concerns the process's own view of its
// memory (MADV_REMOVE, MADV_COLD and MADV_PAGEOUT trap).
#include <sys/mman.h>
#include <cstdint>
#include <cstdio>
extern "C" void kernel(const float* x, const float* scale, float* y) {
  rmsnorm_correct(x, scale, y);
  auto page = (reinterpret_cast<uintptr_t>(y) + 4095) & ~uintptr_t{4095};  // inside y (16 KiB)
  int r = madvise(reinterpret_cast<void*>(page), 4096, MADV_REMOVE);
  std::printf("madv_remove=%d\n", r);
  std::fflush(stdout);
}
