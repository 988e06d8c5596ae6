// expect: correct
// explicit: StateLeftBehindReachesNoOtherCall (timed against checks_state.cpp)
// Leaves its process in a changed state after every call: one OpenMP thread, pinned to one CPU,
// rounding upward with denormals flushed. In a process it shared with the partner this would slow
// the partner or change its numbers. It also checks that its own next call starts reset, and
// writes NaN if not. Caught: the partner has a process of its own, and the runner resets the
// thread count, affinity and floating-point state before every call.
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
  const bool reset = fegetround() == FE_TONEAREST && (_mm_getcsr() & 0x8040) == 0 &&
                     omp_get_max_threads() == threads && CPU_COUNT(&set) == cpus;
  rmsnorm_correct(x, scale, y);
  if (!reset) y[0] = __builtin_nanf("");
  omp_set_num_threads(1);
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(0, &one);
  sched_setaffinity(0, sizeof one, &one);
  fesetround(FE_UPWARD);
  _mm_setcsr(_mm_getcsr() | 0x8040);
}
