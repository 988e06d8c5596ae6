// How two kernels are ranked: the 95% interval of their side-by-side ratio decides.
#include "kforge/eval/paired_decision.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kforge::eval {
namespace {

using ::testing::HasSubstr;

// The interval decides: wholly above 1 the challenger, wholly below the incumbent, else a tie
// (which keeps the incumbent).
TEST(PairedDecision, TheIntervalDecides) {
  EXPECT_EQ(read_interval({1.3, 1.2, 1.4, 1.05, 1.5}), Winner::challenger);
  EXPECT_EQ(read_interval({0.8, 0.7, 0.9, 0.75, 0.95}), Winner::incumbent);
  EXPECT_EQ(read_interval({1.04, 0.9, 1.1, 0.98, 1.08}), Winner::tie);  // a faster median alone wins nothing
  PairedDecision tie{Winner::tie, "iteration 1", SpeedupStats{1.04, 0.9, 1.1, 0.98, 1.08}};
  EXPECT_FALSE(tie.challenger_won());
  EXPECT_THAT(tie.describe(), HasSubstr("a tie keeps it"));
  PairedDecision busy{Winner::undecided, "iteration 1", SpeedupStats{1.5, 1.4, 1.6, 1.45, 1.55}, true, "the machine was busy"};
  EXPECT_FALSE(busy.challenger_won());
  EXPECT_EQ(busy.to_json()["winner"], "undecided");
}

}  // namespace
}  // namespace kforge::eval
