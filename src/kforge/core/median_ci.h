#pragma once
// A distribution-free 95% confidence interval of a median: the rank of the sample median is
// binomial(n, 1/2), so the order statistics n/2 ± 1.96·√n/2 bound it. Used by the runner to
// decide when a timing is precise enough and by the parent to report the speedup's interval.

#include <utility>
#include <vector>

namespace kforge::core {

// `sorted` must be in ascending order; {0, 0} when empty.
std::pair<double, double> median_ci95(const std::vector<double>& sorted);

}  // namespace kforge::core
