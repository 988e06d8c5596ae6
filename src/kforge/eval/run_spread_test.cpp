#include "kforge/eval/run_spread.h"

#include <gtest/gtest.h>

namespace kforge::eval {
namespace {

SpeedupStats ratio(double median, double lo, double hi) { return {median, lo, hi, lo, hi}; }

TEST(RunSpread, OneRunHasNoSpread) { EXPECT_FALSE(run_spread({ratio(1.1, 1.09, 1.12)})); }

// The figures a user saw: four runs of one pair, each interval ±1-2%, none holding the others.
TEST(RunSpread, FourRunsThatDisagreeGetAnIntervalHoldingThemAll) {
  auto s = run_spread({ratio(1.11, 1.09, 1.13), ratio(1.15, 1.13, 1.17), ratio(1.18, 1.16, 1.20),
                       ratio(1.22, 1.20, 1.24)});
  ASSERT_TRUE(s);
  EXPECT_DOUBLE_EQ(s->low, 1.11);
  EXPECT_DOUBLE_EQ(s->high, 1.22);
  EXPECT_NEAR(s->median, 1.165, 1e-12);
  EXPECT_DOUBLE_EQ(s->ci_low, 1.09);
  EXPECT_DOUBLE_EQ(s->ci_high, 1.24);
  EXPECT_TRUE(s->runs_disagree());
  EXPECT_NEAR(s->relative_half_range(), 0.055 / 1.165, 1e-12);
  EXPECT_NE(s->describe().find("do not overlap"), std::string::npos) << s->describe();
}

TEST(RunSpread, RunsThatAgreeAreSaidToAgree) {
  auto s = run_spread({ratio(1.00, 0.98, 1.02), ratio(1.01, 0.99, 1.03)});
  ASSERT_TRUE(s);
  EXPECT_FALSE(s->runs_disagree());
  EXPECT_EQ(s->describe().find("do not overlap"), std::string::npos);
  nlohmann::json j = *s;
  EXPECT_EQ(j["runs"], 2);
  EXPECT_EQ(j["run_medians"].size(), 2u);
  EXPECT_DOUBLE_EQ(j["ci95_across_runs"][0].get<double>(), 0.98);
}

}  // namespace
}  // namespace kforge::eval
