// expect: runtime_error
// reason: past the end of output 'y'
// Writes one block past the end of its output. Caught: a guard page follows every buffer.
extern "C" void kernel(const float* x, const float* scale, float* y) {
  rmsnorm_correct(x, scale, y);
  volatile float* p = y;
  for (std::int64_t i = task::y_numel; i < task::y_numel + 64; ++i) p[i] = 1.0f;
}
