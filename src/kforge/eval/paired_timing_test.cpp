// The pair loop's rules that need no process: the stop rule and the even pauses.
#include "kforge/eval/paired_timing.h"

#include <gtest/gtest.h>

namespace kforge::eval {
namespace {

// `n` pairs whose ratios spread by ±`spread` around 1 (an interval about that wide over n).
PairedTiming pairs(int n, double spread) {
  PairedTiming t;
  for (int i = 0; i < n; ++i) {
    t.candidate_ms.push_back(1.0);
    t.partner_ms.push_back(1.0 + spread * ((i % 11) - 5) / 5.0);
  }
  return t;
}

TEST(PairedTimingStop, EarlyOnlyOnceKnownToOnePercentAndATenthOfTheBudgetHasPassed) {
  PairedTimingRequest req;
  req.budget_s = 2;
  const auto tight = pairs(400, 0.02);
  ASSERT_LT(median_ci_relative(std::vector<double>(tight.partner_ms)), kEarlyStopCi);
  EXPECT_FALSE(timing_done(tight, req, 0.1));  // known, but a tenth of the budget is 0.2 s
  EXPECT_TRUE(timing_done(tight, req, 0.25));
  const auto loose = pairs(400, 0.5);
  ASSERT_GT(median_ci_relative(std::vector<double>(loose.partner_ms)), kEarlyStopCi);
  EXPECT_FALSE(timing_done(loose, req, 1.0));  // not known to ±1%, the budget not spent
}

TEST(PairedTimingStop, AtTheBudgetTwoPercentWillDoAndThreeBudgetsEndIt) {
  PairedTimingRequest req;
  req.budget_s = 2;
  EXPECT_TRUE(timing_done(pairs(400, 0.05), req, 2.0));
  EXPECT_FALSE(timing_done(pairs(40, 0.9), req, 2.0));
  EXPECT_TRUE(timing_done(pairs(40, 0.9), req, 6.0));
}

TEST(EvenPauses, EachSideWaitsAtLeastWhatTheOtherHad) {
  EXPECT_DOUBLE_EQ(even_pause_ms(0.02), 0.1);  // a floor: the shortest natural pauses differ most
  EXPECT_DOUBLE_EQ(even_pause_ms(0.35), 0.35);
  EXPECT_DOUBLE_EQ(even_pause_ms(12.0), 1.0);  // an audit's copies are not matched
}

}  // namespace
}  // namespace kforge::eval
