// The argument list of one call.
#include "kforge/runner/run_state.h"

#include <time.h>

namespace kforge::runner {

std::vector<void*> RunState::args(std::size_t input_set, std::size_t output_set) const {
  std::vector<void*> a;
  for (const auto& b : input_sets.at(input_set)) a.push_back(b.data);
  for (const auto& b : output_sets.at(output_set)) a.push_back(b.data);
  return a;
}

double now_seconds() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + ts.tv_nsec * 1e-9;
}

}  // namespace kforge::runner
