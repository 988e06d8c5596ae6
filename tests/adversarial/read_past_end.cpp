// expect: runtime_error
// reason: past the end of input 'x'
// Reads past the end of an input. Caught: a guard page follows every buffer.
extern "C" void kernel(const float* x, const float* scale, float* y) {
  volatile float sink = 0;
  for (std::int64_t i = 0; i < task::x_numel + 1024; ++i) sink = sink + x[i];
  rmsnorm_correct(x, scale, y);
}
