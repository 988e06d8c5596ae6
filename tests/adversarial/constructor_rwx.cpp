// expect: sandbox_violation
// reason: mmap
// A constructor maps memory that is writable and executable, to hold code it writes later.
// Caught: the filter that governs calls is in force while constructors run; no anonymous or
// writable executable mapping is ever allowed.
#include <sys/mman.h>
__attribute__((constructor)) static void on_load() {
  mmap(nullptr, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
}
extern "C" void kernel(const float* x, const float* scale, float* y) {
  rmsnorm_correct(x, scale, y);
}
