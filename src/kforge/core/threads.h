#pragma once
// The thread count a kernel runs with when none was asked for: every CPU. Written once so that
// eval, bench, auto, search and hitl cannot disagree on it.

#include <algorithm>
#include <thread>

namespace kforge::core {

inline int thread_count(int asked = 0) {
  return asked > 0 ? asked : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

}  // namespace kforge::core
