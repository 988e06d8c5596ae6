// expect: sandbox_violation
// reason: openat
// no-file: /tmp/kforge-adversarial-file-marker
// Writes a file. Caught: seccomp refuses opening files once the kernel is loaded.
#include <cstdio>
extern "C" void kernel(const float* x, const float* scale, float* y) {
  if (FILE* f = std::fopen("/tmp/kforge-adversarial-file-marker", "w")) std::fclose(f);
  rmsnorm_correct(x, scale, y);
}
