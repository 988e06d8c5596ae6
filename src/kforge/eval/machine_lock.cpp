// The machine lock's bookkeeping.
#include "kforge/eval/machine_lock.h"

#include <time.h>

namespace kforge::eval {

double monotonic_seconds() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + ts.tv_nsec * 1e-9;
}

std::shared_lock<std::shared_mutex> MachineLock::share() { return std::shared_lock<std::shared_mutex>(machine_); }

std::unique_lock<std::shared_mutex> MachineLock::measure() {
  double start = monotonic_seconds();
  std::unique_lock<std::shared_mutex> lock(machine_);
  std::lock_guard g(stats_);
  waited_ += monotonic_seconds() - start;
  return lock;
}

void MachineLock::record(Window w) {
  std::lock_guard g(stats_);
  windows_.push_back(w);
}

double MachineLock::waited_seconds() const {
  std::lock_guard g(stats_);
  return waited_;
}

std::vector<MachineLock::Window> MachineLock::windows() const {
  std::lock_guard g(stats_);
  return windows_;
}

}  // namespace kforge::eval
