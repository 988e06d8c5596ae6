// expect: runtime_error
// reason: stack
// Recurses without end. Caught: the stack's guard page faults; the fault handler, on its own
// stack, names the overflow.
static int depth(volatile int n) {
  volatile char pad[256];
  pad[0] = char(n);
  return depth(n + 1) + pad[0];
}
extern "C" void kernel(const float* x, const float* scale, float* y) { y[0] = float(depth(0)); }
