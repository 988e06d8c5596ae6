// expect: incorrect
// mode: timed
// min-pairs: 40
// warmup: 0
// audit-every: 1000000
// sample-lines: 8
// reason: lines sampled at random
// Once warm, returns its previous answer whole: every element stale. A pair that is not audited
// still compares a few lines drawn after the call returned, and a stale answer fails any of them.
static long calls = 0;
static float previous[task::y_numel];
extern "C" void kernel(const float* x, const float* scale, float* y) {
  if (++calls <= 20) rmsnorm_correct(x, scale, previous);
  std::memcpy(y, previous, sizeof previous);
}
