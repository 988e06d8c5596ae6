// host: no_device
// gpu: report
// Loads cuBLAS at run time with dlopen, past the link check, and copies x into y with it (wrong,
// so the check fails either way). Defended by the walls (runner/cuda_sandbox.h): Landlock lets the
// kernel's process read only its own file and the libraries the loader resolved for it before
// the walls, so dlopen finds libcublas beside libcudart and may not read it. Not yet seen on a
// device (the walls' rules are not yet traced there); the GPU suite records what happens.
#include <dlfcn.h>
#include "kforge_task.h"
extern "C" void kernel(const float* x, const float* scale, float* y, cudaStream_t stream) {
  void* blas = dlopen("libcublas.so.13", RTLD_NOW);
  if (!blas) return;
  using Create = int (*)(void**);
  using Copy = int (*)(void*, int, const float*, int, float*, int);
  void* h = nullptr;
  reinterpret_cast<Create>(dlsym(blas, "cublasCreate_v2"))(&h);
  reinterpret_cast<Copy>(dlsym(blas, "cublasScopy_v2"))(h, static_cast<int>(task::y_numel), x, 1, y, 1);
}
