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
  EXPECT_EQ(read_interval({1.04, 0.9, 1.1, 0.98, 1.08}),
            Winner::tie);  // a faster median alone wins nothing
  PairedDecision tie{Winner::tie, "iteration 1", SpeedupStats{1.04, 0.9, 1.1, 0.98, 1.08}};
  EXPECT_FALSE(tie.challenger_won());
  EXPECT_THAT(tie.describe(), HasSubstr("a tie keeps it"));
  PairedDecision busy{Winner::undecided, "iteration 1", SpeedupStats{1.5, 1.4, 1.6, 1.45, 1.55},
                      true, "the machine was busy"};
  EXPECT_FALSE(busy.challenger_won());
  EXPECT_EQ(busy.to_json()["winner"], "undecided");
}

// On a machine that stays busy, a comparison decides only when two runs agree: both intervals
// wholly above 1 (or both below). One decisive run and one tie, or two runs that point opposite
// ways, are a tie, which keeps the incumbent.
TEST(PairedDecision, BusyRunsDecideOnlyWhenBothAgree) {
  const SpeedupStats faster{2.0, 1.8, 2.2, 1.7, 2.3}, slower{0.5, 0.4, 0.6, 0.45, 0.55},
      unclear{1.1, 0.8, 1.4, 0.9, 1.3};
  EXPECT_EQ(read_busy_runs(faster, faster), Winner::challenger);
  EXPECT_EQ(read_busy_runs(slower, slower), Winner::incumbent);
  EXPECT_EQ(read_busy_runs(faster, unclear), Winner::tie);
  EXPECT_EQ(read_busy_runs(unclear, faster), Winner::tie);
  EXPECT_EQ(read_busy_runs(faster, slower), Winner::tie);
  const SpeedupStats also_faster{1.9, 1.7, 2.1, 1.6, 2.2};
  PairedDecision d{Winner::challenger, "iteration 1", also_faster, true, "", faster, true};
  EXPECT_THAT(
      d.describe(),
      HasSubstr(
          "2.000x iteration 1 (95% CI 1.700–2.300), then 1.900x iteration 1 (95% CI 1.600–2.200)"));
  EXPECT_THAT(d.describe(), HasSubstr("on a busy machine (both intervals agree)"));
  auto j = d.to_json();
  EXPECT_EQ(j["method"], "paired, busy, confirmed by a second run");
  EXPECT_EQ(j["decided_busy"], true);
  EXPECT_DOUBLE_EQ(j["first_ratio"]["median"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(j["ratio"]["median"].get<double>(), 1.9);
}

}  // namespace
}  // namespace kforge::eval
