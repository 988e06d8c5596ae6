// expect: sandbox_violation | incorrect
// Returns at once and finishes the output from a detached thread. Caught: outputs are
// snapshotted at return and compared with what is there later.
#include <time.h>
#include <thread>
extern "C" void kernel(const float* x, const float* scale, float* y) {
  std::thread([=] {
    timespec ts{0, 2000000};
    nanosleep(&ts, nullptr);
    rmsnorm_correct(x, scale, y);
  }).detach();
}
