// expect: input_modified
// reason: read-only input 'x'
// Uses its input as scratch space. Caught: inputs are sealed read-only shared memory; the write
// faults.
extern "C" void kernel(const float* x, const float* scale, float* y) {
  const_cast<float*>(x)[5] = 0.0f;
  rmsnorm_correct(x, scale, y);
}
