// expect: correct
// mode: timed
// output-has: partner_found=0 blas_found=0
// Looks for the implementation it is timed against, and for BLAS, inside its own process: every
// loaded object's `kernel` (dl_iterate_phdr, dlopen RTLD_NOLOAD, dlsym), and OpenBLAS or libtorch
// by name and by path. If it found the partner it would return the partner's answer. Caught: the
// partner runs in a process of its own, and an untrusted kernel's process cannot open system
// libraries (those it links are loaded before the sandbox closes).
#include <dlfcn.h>
#include <link.h>
#include <cstdio>
typedef void (*Kernel)(const float*, const float*, float*);
extern "C" void kernel(const float* x, const float* scale, float* y);
static Kernel partner = nullptr;
static int visit(dl_phdr_info* info, size_t, void*) {
  if (!info->dlpi_name || !*info->dlpi_name) return 0;
  void* h = dlopen(info->dlpi_name, RTLD_NOLOAD | RTLD_LAZY);
  if (!h) return 0;
  auto k = reinterpret_cast<Kernel>(dlsym(h, "kernel"));
  if (k && k != &kernel) partner = k;
  return 0;
}
static int blas_found() {
  const char* names[] = {
      "libopenblas.so.0", "/usr/lib/x86_64-linux-gnu/libopenblas.so.0", "libblas.so.3",
      "libtorch_cpu.so",  "/usr/lib/x86_64-linux-gnu/libtorch_cpu.so",  "libdnnl.so.3"};
  int found = 0;
  for (const char* n : names)
    if (dlopen(n, RTLD_NOLOAD | RTLD_LAZY) || dlopen(n, RTLD_LAZY)) ++found;
  return found;
}
extern "C" void kernel(const float* x, const float* scale, float* y) {
  static bool looked = false;
  if (!looked) {
    dl_iterate_phdr(visit, nullptr);
    std::printf("partner_found=%d blas_found=%d\n", partner != nullptr, blas_found());
    std::fflush(stdout);
    looked = true;
  }
  if (partner) return partner(x, scale, y);
  rmsnorm_correct(x, scale, y);
}
