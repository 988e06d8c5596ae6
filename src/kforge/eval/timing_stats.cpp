// Quantiles and ratio summaries.
#include "kforge/eval/timing_stats.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "kforge/core/median_ci.h"

namespace kforge::eval {

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  double pos = q * static_cast<double>(v.size() - 1);
  auto lo = static_cast<std::size_t>(pos);
  std::size_t hi = std::min(lo + 1, v.size() - 1);
  double frac = pos - static_cast<double>(lo);
  return v[lo] * (1 - frac) + v[hi] * frac;
}

TimingStats summarize(const std::vector<double>& ms) {
  TimingStats t;
  t.samples = static_cast<int>(ms.size());
  if (ms.empty()) return t;
  t.median_ms = quantile(ms, 0.5);
  t.p10_ms = quantile(ms, 0.1);
  t.p90_ms = quantile(ms, 0.9);
  t.min_ms = *std::min_element(ms.begin(), ms.end());
  return t;
}

SpeedupStats summarize_ratios(const std::vector<double>& candidate_ms,
                              const std::vector<double>& baseline_ms) {
  std::vector<double> r;
  for (std::size_t i = 0; i < candidate_ms.size() && i < baseline_ms.size(); ++i)
    if (candidate_ms[i] > 0) r.push_back(baseline_ms[i] / candidate_ms[i]);
  std::sort(r.begin(), r.end());
  auto [lo, hi] = core::median_ci95(r);
  return {quantile(r, 0.5), quantile(r, 0.1), quantile(r, 0.9), lo, hi};
}

void to_json(nlohmann::json& j, const TimingStats& t) {
  j = {{"samples", t.samples},
       {"median_ms", t.median_ms},
       {"p10_ms", t.p10_ms},
       {"p90_ms", t.p90_ms},
       {"min_ms", t.min_ms}};
}

void to_json(nlohmann::json& j, const SpeedupStats& s) {
  j = {{"median", s.median}, {"p10", s.p10}, {"p90", s.p90}, {"ci95", {s.ci_low, s.ci_high}}};
}

}  // namespace kforge::eval
