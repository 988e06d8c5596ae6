// The figures every speedup is reported with: quantiles, the median of per-pair ratios, and the
// confidence interval of that median.
#include "kforge/eval/timing_stats.h"

#include <gtest/gtest.h>

#include <random>

namespace kforge::eval {
namespace {

TEST(TimingStats, SpeedupIsTheMedianOfPerPairRatios) {
  // A drift that slows both sides of a pair alike leaves every ratio at 2.
  std::vector<double> cand = {1, 2, 4, 8, 16}, base = {2, 4, 8, 16, 32};
  auto s = summarize_ratios(cand, base);
  EXPECT_DOUBLE_EQ(s.median, 2.0);
  EXPECT_DOUBLE_EQ(s.ci_low, 2.0);
  EXPECT_DOUBLE_EQ(s.ci_high, 2.0);
  EXPECT_DOUBLE_EQ(summarize(cand).median_ms, 4.0);
}

TEST(TimingStats, TheMedianCiCoversTheTrueMedianAboutNineteenTimesInTwenty) {
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> noise(0.0, 0.1);  // the true median ratio is 1
  int covered = 0;
  const int trials = 2000;
  double width = 0;
  for (int t = 0; t < trials; ++t) {
    std::vector<double> cand(60), base(60);
    for (int i = 0; i < 60; ++i) {
      cand[i] = 1.0;
      base[i] = noise(rng);
    }
    auto s = summarize_ratios(cand, base);
    covered += s.ci_low <= 1.0 && 1.0 <= s.ci_high;
    width += s.ci_high - s.ci_low;
  }
  EXPECT_GT(covered, trials * 0.93);
  EXPECT_LT(covered, trials * 0.995);  // not a vacuous interval either
  EXPECT_LT(width / trials, 0.1);      // ~±2.5% for 60 pairs of 10% noise
}

}  // namespace
}  // namespace kforge::eval
