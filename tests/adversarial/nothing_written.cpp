// expect: incorrect
// reason: never written
// Returns without writing. Caught: outputs are pre-filled with NaN, so stale or zeroed memory
// cannot pass.
extern "C" void kernel(const float* x, const float* scale, float* y) {}
