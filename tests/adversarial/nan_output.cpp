// expect: incorrect
// Writes NaN everywhere. Caught: non-finite values pass only where the reference has them.
extern "C" void kernel(const float* x, const float* scale, float* y) {
  for (std::int64_t i = 0; i < task::y_numel; ++i) y[i] = NAN;
}
