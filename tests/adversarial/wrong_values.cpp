// expect: incorrect
// reason: output 'y' is wrong
// Forgets the scale: plausible numbers, wrong. Caught by the comparison with the reference.
extern "C" void kernel(const float* x, const float* scale, float* y) {
  using namespace task;
  static float ones[D];
  for (auto& v : ones) v = 1.0f;
  rmsnorm_correct(x, ones, y);
}
