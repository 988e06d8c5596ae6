// expect: sandbox_violation
// reason: mmap
// Maps memory it could write code into (to patch the harness or run shellcode). Caught: once the
// kernel is loaded, no mapping may be executable.
#include <sys/mman.h>
extern "C" void kernel(const float* x, const float* scale, float* y) {
  mmap(nullptr, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  rmsnorm_correct(x, scale, y);
}
