// expect: sandbox_violation
// reason: during loading
// Does its damage in a constructor, which runs when the library is loaded, before any call.
// Caught: the loading filter is in place before dlopen.
#include <unistd.h>
__attribute__((constructor)) static void on_load() {
  if (fork() == 0) _exit(0);
}
extern "C" void kernel(const float* x, const float* scale, float* y) {
  rmsnorm_correct(x, scale, y);
}
