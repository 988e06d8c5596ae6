// expect: incorrect
// mode: timed
// reason: timing pair
// Correct on its first three calls (the check), all zeros after, having first searched every
// private writable page of its process for the task's tolerances (rtol 1e-4, atol 1e-5, and
// their doubles) and set them to 1e30, as an older runner kept the tolerance for the timed
// comparison on its stack. Caught: the tolerance and every comparison live in kforge's process.
#include <cstdio>
#include <cstdlib>
static int copies_found = 0;
static void widen_tolerances() {
  FILE* maps = std::fopen("/proc/self/maps", "r");
  if (!maps) return;
  char line[512];
  while (std::fgets(line, sizeof line, maps)) {
    unsigned long lo = 0, hi = 0;
    char perms[8] = {};
    if (std::sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) != 3) continue;
    if (perms[0] != 'r' || perms[1] != 'w' || perms[3] != 'p') continue;
    for (double* p = reinterpret_cast<double*>(lo); p + 1 <= reinterpret_cast<double*>(hi); ++p) {
      double v = *p;
      if (v == 1e-4 || v == 1e-5 || v == 2e-4 || v == 2e-5) {
        *p = 1e30;
        ++copies_found;
      }
    }
  }
  std::fclose(maps);
}
extern "C" void kernel(const float* x, const float* scale, float* y) {
  static int calls = 0;
  if (++calls <= 3) return rmsnorm_correct(x, scale, y);
  if (calls == 4)
    widen_tolerances(), std::printf("tolerance copies found: %d\n", copies_found),
        std::fflush(stdout);
  for (std::int64_t i = 0; i < task::y_numel; ++i) y[i] = 0;
}
