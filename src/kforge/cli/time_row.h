#pragma once
// kforge eval's `time` row: an evaluation's seconds and where they went, the waits first (for the
// machine lock, for a quiet machine), so that no stretch of the total goes unexplained.

#include <string>

#include "kforge/eval/evaluation.h"

namespace kforge::cli {

// "196.03 s (waited 184.20 for the machine lock, 6.00 for quiet; compile 0.00 cached, check 0.06,
// timing 5.84)"; a wait or a partner build under 0.05 s is left out.
std::string time_row(const eval::Evaluation& e);

}  // namespace kforge::cli
