// expect: incorrect
// mode: timed
// reason: reuse results across calls
// Remembers its last output by input address and returns it when the address repeats, as in a
// harness that times the same buffers again and again. Caught: timing perturbs the inputs
// between calls and compares every timed output with the partner's on the same data.
static const float* last_x = nullptr;
static float cached[task::y_numel];
extern "C" void kernel(const float* x, const float* scale, float* y) {
  if (x != last_x) {
    rmsnorm_correct(x, scale, cached);
    last_x = x;
  }
  std::memcpy(y, cached, sizeof cached);
}
