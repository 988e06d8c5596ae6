#pragma once
// One measurement at a time on the machine. Timing (and profiling) takes the machine exclusively;
// compiling, checking and computing references share it, so a parallel search can overlap model
// calls and compiles without any of them running during someone's timed window. The lock keeps
// the windows and the time spent waiting, for reports and tests.

#include <chrono>
#include <mutex>
#include <shared_mutex>
#include <vector>

namespace kforge::eval {

class MachineLock {
 public:
  struct Window {
    double start = 0, end = 0;  // CLOCK_MONOTONIC seconds
  };

  // For work that may run alongside other such work, but not during a measurement.
  std::shared_lock<std::shared_mutex> share();
  // For a measurement: waits until nothing else holds the machine. Call done(window) after.
  std::unique_lock<std::shared_mutex> measure();
  void record(Window w);

  double waited_seconds() const;   // total time spent waiting in measure()
  std::vector<Window> windows() const;

 private:
  std::shared_mutex machine_;
  mutable std::mutex stats_;
  double waited_ = 0;
  std::vector<Window> windows_;
};

double monotonic_seconds();

}  // namespace kforge::eval
