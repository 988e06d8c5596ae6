// Order-statistic bounds of the median.
#include "kforge/core/median_ci.h"

#include <algorithm>
#include <cmath>

namespace kforge::core {

std::pair<double, double> median_ci95(const std::vector<double>& sorted) {
  if (sorted.empty()) return {0, 0};
  const double n = static_cast<double>(sorted.size());
  auto lo = static_cast<std::size_t>(std::max(0.0, std::floor(n / 2 - 0.98 * std::sqrt(n))));
  auto hi = static_cast<std::size_t>(std::min(n - 1, std::ceil(n / 2 + 0.98 * std::sqrt(n))));
  return {sorted[lo], sorted[hi]};
}

}  // namespace kforge::core
