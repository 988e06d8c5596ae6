// expect: sandbox_violation
// reason: mmap
// An IFUNC resolver (run by the loader while it relocates the library, before any constructor)
// maps writable executable memory. Caught: the filter is in place before the loader starts.
#include <sys/mman.h>
typedef void (*Impl)(const float*, const float*, float*);
static void impl(const float* x, const float* scale, float* y) { rmsnorm_correct(x, scale, y); }
extern "C" Impl resolve_impl() {
  mmap(nullptr, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return impl;
}
extern "C" void kernel_impl(const float*, const float*, float*)
    __attribute__((ifunc("resolve_impl")));
extern "C" void kernel(const float* x, const float* scale, float* y) { kernel_impl(x, scale, y); }
