// expect: runtime_error
// reason: memory limit
// Asks for 64 GiB. Caught: the address-space limit makes the allocation fail inside the sandbox.
#include <vector>
extern "C" void kernel(const float* x, const float* scale, float* y) {
  std::vector<float> scratch(std::size_t(16) << 30);
  scratch[12345] = 1;
  rmsnorm_correct(x, scale, y);
}
