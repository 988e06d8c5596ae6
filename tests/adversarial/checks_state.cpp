// A trusted partner for leaves_state.cpp: computes correctly, but writes NaN if it finds the
// state a kernel in its process could have left (fewer OpenMP threads than its process started
// with, a narrowed affinity, a changed rounding mode or flush-to-zero).
#include <omp.h>
#include <sched.h>
#include <xmmintrin.h>
#include <cfenv>
extern "C" void kernel(const float* x, const float* scale, float* y) {
  static const int threads = omp_get_max_threads();
  static const int cpus = [] {
    cpu_set_t s;
    sched_getaffinity(0, sizeof s, &s);
    return CPU_COUNT(&s);
  }();
  cpu_set_t set;
  sched_getaffinity(0, sizeof set, &set);
  const bool clean = fegetround() == FE_TONEAREST && (_mm_getcsr() & 0x8040) == 0 &&
                     omp_get_max_threads() == threads && CPU_COUNT(&set) == cpus;
  rmsnorm_correct(x, scale, y);
  if (!clean) y[0] = __builtin_nanf("");
}
