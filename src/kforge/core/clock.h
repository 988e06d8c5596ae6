#pragma once
// Elapsed wall time, the one way kforge reads it: a monotonic clock (never the calendar's, which
// jumps), in seconds as a double.

#include <chrono>

namespace kforge::core {

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace kforge::core
