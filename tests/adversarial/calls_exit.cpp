// expect: runtime_error
// reason: exit status 0
// Ends the process with status 0 before returning, as if all were well. Caught: the runner never
// reported.
#include <cstdlib>
extern "C" void kernel(const float* x, const float* scale, float* y) {
  rmsnorm_correct(x, scale, y);
  std::exit(0);
}
