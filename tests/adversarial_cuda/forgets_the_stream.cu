// host: compile_error
// Declares the cpu target's signature (no stream). Caught by the compiler: kforge_task.h declares
// the entry with the cudaStream_t parameter.
#include "kforge_task.h"
extern "C" void kernel(const float* x, const float* scale, float* y) {}
