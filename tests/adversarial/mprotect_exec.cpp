// expect: sandbox_violation
// reason: mprotect
// A constructor writes code into a private page, then asks for it to become executable.
// Caught: mprotect may never add PROT_EXEC.
#include <sys/mman.h>
__attribute__((constructor)) static void on_load() {
  void* p = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  static_cast<unsigned char*>(p)[0] = 0xc3;  // ret
  mprotect(p, 4096, PROT_READ | PROT_EXEC);
}
extern "C" void kernel(const float* x, const float* scale, float* y) {
  rmsnorm_correct(x, scale, y);
}
