// expect: runtime_error
// reason: past the end of input 'x'
// Reads one row-block far past the end of an input (400 KB: many pages past the last one).
// Caught: the guard region after a buffer is as large as the buffer (at least 1 MiB).
extern "C" void kernel(const float* x, const float* scale, float* y) {
  volatile float sink = x[task::x_numel + 100000];
  (void)sink;
  rmsnorm_correct(x, scale, y);
}
