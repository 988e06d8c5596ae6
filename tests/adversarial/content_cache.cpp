// expect: incorrect
// mode: timed
// reason: timing pair
// A small cache keyed on a coarse summary of the input contents (the first values, rounded).
// Caught: the summary survives the timing perturbation, the answer does not.
struct Entry {
  long key = -1;
  float out[task::y_numel];
};
static Entry cache[4];
extern "C" void kernel(const float* x, const float* scale, float* y) {
  long key = 0;
  for (int i = 0; i < 8; ++i) key = key * 31 + std::lround(x[i] * 2);
  for (auto& e : cache)
    if (e.key == key) {
      std::memcpy(y, e.out, sizeof e.out);
      return;
    }
  Entry& slot = cache[key & 3];
  rmsnorm_correct(x, scale, slot.out);
  slot.key = key;
  std::memcpy(y, slot.out, sizeof slot.out);
}
