// host: compile_error
// Includes a file outside its folder to quote it in a diagnostic. Caught: nvcc runs in the
// compile sandbox, which sees the toolkit and the kernel's own folder only.
#include "/etc/shadow"
#include "kforge_task.h"
extern "C" void kernel(const float* x, const float* scale, float* y, cudaStream_t stream) {}
