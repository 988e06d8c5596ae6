#pragma once
// Summaries of paired timings: median and p10/p90 per side, and the speedup as the median of
// per-pair ratios (robust to drift that affects both sides of a pair alike).

#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace kforge::eval {

struct TimingStats {
  int samples = 0;
  double median_ms = 0;
  double p10_ms = 0;
  double p90_ms = 0;
  double min_ms = 0;
};

struct SpeedupStats {
  double median = 0;  // median over pairs of baseline_ms / candidate_ms
  double p10 = 0;
  double p90 = 0;
  double ci_low = 0;  // a distribution-free 95% confidence interval of that median
  double ci_high = 0;
};

double quantile(std::vector<double> values, double q);  // linear interpolation, q in [0, 1]
TimingStats summarize(const std::vector<double>& ms);
SpeedupStats summarize_ratios(const std::vector<double>& candidate_ms,
                              const std::vector<double>& baseline_ms);

void to_json(nlohmann::json& j, const TimingStats& t);
void to_json(nlohmann::json& j, const SpeedupStats& s);

}  // namespace kforge::eval
