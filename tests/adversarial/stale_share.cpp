// expect: incorrect
// mode: timed
// min-pairs: 40
// warmup: 0
// audit-every: 1000000
// sample-lines: 0
// reason: the last, compared in full
// Once warm, serves one row in sixteen from its previous answer: 6% of the work saved, most of
// the output right. Timing with no random audits and empty samples leaves one defence: the last
// timed pair is compared with the partner in full, whatever was drawn.
static long calls = 0;
static float previous[task::y_numel];
extern "C" void kernel(const float* x, const float* scale, float* y) {
  using namespace task;
  float fresh[y_numel];
  rmsnorm_correct(x, scale, fresh);
  if (++calls > 20) std::memcpy(fresh, previous, sizeof(float) * y_numel / 16);
  std::memcpy(y, fresh, sizeof fresh);
  std::memcpy(previous, fresh, sizeof fresh);
}
