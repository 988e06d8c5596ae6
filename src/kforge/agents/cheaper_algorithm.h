#pragma once
// Whether a kernel does fewer operations than the task's cost model counts. The roofline fraction
// divides the cost model's FLOP count (the direct algorithm's) by the kernel's time, so a kernel
// that computes the same result with fewer operations (Winograd, FFT, Strassen, or skipping work
// the task's notes call degenerate) reads closer to the machine's limit than it is: a Winograd
// convolution read "97.4% of the roofline" while it still had room. Such a fraction is flagged
// whenever the plan or the source names the algorithm, not only once it passes 100%.

#include <string>
#include <string_view>

namespace kforge::agents {

// What makes the kernel count fewer operations, as named in `text` (a plan's strategy or a kernel
// source): "a Winograd convolution", "an FFT", "Strassen's multiplication", or, for a task tagged
// degenerate, "skipping work the task's notes call degenerate". "" when nothing names one.
std::string fewer_operations_algorithm(std::string_view text, bool task_degenerate);

// The caveat for a roofline fraction of a kernel that uses `algorithm`; "" for "".
std::string roofline_caveat(const std::string& algorithm);

}  // namespace kforge::agents
