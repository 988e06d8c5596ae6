// The spread of one pair's ratio across independent runs.
#include "kforge/eval/run_spread.h"

#include <fmt/format.h>

#include <algorithm>

namespace kforge::eval {

double RunSpread::relative_half_range() const {
  return median > 0 ? (high - low) / (2 * median) : 0;
}

bool RunSpread::runs_disagree() const {
  double highest_low = 0, lowest_high = 1e300;
  for (const auto& r : runs) {
    highest_low = std::max(highest_low, r.ci_low);
    lowest_high = std::min(lowest_high, r.ci_high);
  }
  return highest_low > lowest_high;
}

std::string RunSpread::describe() const {
  return fmt::format("{:.3g}x across {} runs ({:.3g}-{:.3g}x; ±{:.1f}%), holds in {:.3g}-{:.3g}x{}",
                     median, runs.size(), low, high, 100 * relative_half_range(), ci_low, ci_high,
                     runs_disagree() ? "; the runs' intervals do not overlap: one run's interval "
                                       "understates the spread"
                                     : "");
}

std::optional<RunSpread> run_spread(const std::vector<SpeedupStats>& runs) {
  if (runs.size() < 2) return std::nullopt;
  RunSpread s;
  s.runs = runs;
  std::vector<double> medians;
  medians.reserve(runs.size());
  for (const auto& r : runs) medians.push_back(r.median);
  s.median = quantile(medians, 0.5);
  s.low = *std::min_element(medians.begin(), medians.end());
  s.high = *std::max_element(medians.begin(), medians.end());
  s.ci_low = s.low;
  s.ci_high = s.high;
  for (const auto& r : runs) {
    s.ci_low = std::min(s.ci_low, r.ci_low);
    s.ci_high = std::max(s.ci_high, r.ci_high);
  }
  return s;
}

void to_json(nlohmann::json& j, const RunSpread& s) {
  j = {{"runs", s.runs.size()},
       {"run_medians", nlohmann::json::array()},
       {"median", s.median},
       {"low", s.low},
       {"high", s.high},
       {"relative_half_range", s.relative_half_range()},
       {"ci95_across_runs", {s.ci_low, s.ci_high}},
       {"runs_disagree", s.runs_disagree()}};
  for (const auto& r : s.runs) j["run_medians"].push_back(r.median);
}

}  // namespace kforge::eval
