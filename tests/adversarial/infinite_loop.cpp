// expect: timeout
// timeout: 1
// max-seconds: 30
// Never returns. Caught: the parent's deadline kills the runner's process group.
extern "C" void kernel(const float* x, const float* scale, float* y) {
  volatile bool forever = true;
  while (forever) {
  }
}
