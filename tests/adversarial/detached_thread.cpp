// Returns at once and finishes the output from a detached thread. Caught: outputs are
// snapshotted at return and compared with what is there later.
#include <thread>
#include <time.h>
extern "C" void kernel(const float* x, const float* scale, float* y) {
  std::thread([=] {
    timespec ts{0, 2000000};
    nanosleep(&ts, nullptr);
    rmsnorm_correct(x, scale, y);
  }).detach();
}
