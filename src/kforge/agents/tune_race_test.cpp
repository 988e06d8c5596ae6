// The tuner's race with a fake judge whose ratios are fixed per variant: a clearly slower variant
// is dropped after its first short run, the runs go to the variants still close to the leader
// (with twice the timing each round), a tie keeps the leader, a winner is decided by its paired
// interval, and the budget of runs bounds how many side-by-side runs are made.
#include "kforge/agents/tune_race.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

namespace kforge::agents {
namespace {

using ::testing::HasSubstr;

TuneConfig tile(const std::string& v) { return {{"TILE", v}}; }

// Each variant's 95% interval of the leader's time over its own, whoever leads: below 1 slower,
// above 1 faster, around 1 a tie. Records every call.
struct FakeJudge {
  std::map<std::string, eval::SpeedupStats> ratio;  // by TILE value
  struct Call {
    std::string variant, leader;
    double budget_s;
  };
  std::vector<Call> calls;

  PairedJudge judge() {
    return [this](const TuneConfig& variant, const TuneConfig& leader, double budget_s) {
      calls.push_back({variant.at("TILE"), leader.at("TILE"), budget_s});
      eval::PairedDecision d;
      d.ratio = ratio.at(variant.at("TILE"));
      d.winner = eval::read_interval(*d.ratio);
      eval::Evaluation e;
      e.verdict = eval::Verdict::correct;
      d.evaluation = e;
      return d;
    };
  }
  int calls_for(const std::string& v) const {
    int n = 0;
    for (const auto& c : calls) n += c.variant == v;
    return n;
  }
};

const eval::SpeedupStats kSlower{0.5, 0.48, 0.52, 0.49, 0.51};
const eval::SpeedupStats kTie{1.0, 0.97, 1.03, 0.98, 1.02};
const eval::SpeedupStats kTieHigh{1.01, 0.98, 1.04, 0.99, 1.03};
const eval::SpeedupStats kTieLow{0.99, 0.96, 1.02, 0.97, 1.01};
const eval::SpeedupStats kFaster{1.5, 1.45, 1.55, 1.47, 1.53};

TEST(TuneRace, AClearlySlowerVariantIsDroppedAfterItsFirstRunAndTheTiesGetTheRest) {
  FakeJudge f;
  f.ratio = {{"2", kSlower}, {"4", kTie}, {"16", kTie}};
  auto r = race(tile("8"), {tile("2"), tile("4"), tile("16")}, f.judge(), {10, 0.25});

  // TILE=2 ran once, in round 1, and was dropped; the two ties were timed again with twice the
  // timing, and then, tied twice, were within noise: the defaults stay.
  EXPECT_EQ(f.calls_for("2"), 1);
  EXPECT_EQ(f.calls_for("4"), 2);
  EXPECT_EQ(f.calls_for("16"), 2);
  ASSERT_EQ(f.calls.size(), 5u);
  for (int i = 0; i < 3; ++i) EXPECT_DOUBLE_EQ(f.calls[i].budget_s, 0.25);
  for (int i = 3; i < 5; ++i) EXPECT_DOUBLE_EQ(f.calls[i].budget_s, 0.5);
  EXPECT_EQ(r.leader, tile("8"));
  EXPECT_EQ(r.trials[0].outcome, "slower: dropped");
  EXPECT_EQ(r.trials[1].outcome, "tie: raced again");
  EXPECT_THAT(r.trials[4].outcome, HasSubstr("within noise: the leader stays"));
  EXPECT_EQ(r.trials[4].round, 2);
}

// Many ties: only the better half by median races on (successive halving); the slower half is
// dropped after round 1 instead of costing a longer run each.
TEST(TuneRace, TheBetterHalfOfTheTiesRacesOn) {
  FakeJudge f;
  f.ratio = {{"1", kTieLow}, {"2", kTieHigh}, {"3", kTieLow}, {"4", kTieHigh}};
  auto r = race(tile("8"), {tile("1"), tile("2"), tile("3"), tile("4")}, f.judge(), {10, 0.25});
  EXPECT_EQ(f.calls_for("1"), 1);
  EXPECT_EQ(f.calls_for("3"), 1);
  EXPECT_EQ(f.calls_for("2"), 2);
  EXPECT_EQ(f.calls_for("4"), 2);
  EXPECT_EQ(r.trials[0].outcome, "tie, in the slower half of the ties: dropped");
  EXPECT_EQ(r.leader, tile("8"));
}

// Ties keep the incumbent however many there are; a variant takes the lead only by its interval,
// and the variants after it race the new leader.
TEST(TuneRace, TiesKeepTheIncumbentAndAWinnerIsDecidedByItsInterval) {
  FakeJudge f;
  f.ratio = {{"4", kTie}, {"16", kTie}};
  EXPECT_EQ(race(tile("8"), {tile("4"), tile("16")}, f.judge(), {10, 0.25}).leader, tile("8"));

  FakeJudge g;
  g.ratio = {{"4", kFaster}, {"16", kTie}, {"2", kSlower}};
  auto r = race(tile("8"), {tile("4"), tile("16"), tile("2")}, g.judge(), {10, 0.25});
  EXPECT_EQ(r.leader, tile("4"));
  EXPECT_EQ(r.trials[0].outcome, "took the lead");
  EXPECT_EQ(g.calls[1].leader, "4");  // TILE=16 raced the new leader, not the defaults
  EXPECT_EQ(g.calls[2].leader, "4");
  EXPECT_EQ(g.calls_for("4"), 1);  // the leader is not raced against itself
}

// The budget bounds the side-by-side runs: with 3 runs for 7 variants, 3 are timed and 4 are left
// untimed (and said so); with 8, round 1 times all 7 and one tie gets a second run.
TEST(TuneRace, TheBudgetBoundsTheRuns) {
  std::vector<TuneConfig> variants;
  FakeJudge f;
  for (int v = 1; v <= 7; ++v) {
    variants.push_back(tile(std::to_string(v)));
    f.ratio[std::to_string(v)] = v % 2 ? kTieHigh : kTieLow;
  }
  auto r = race(tile("8"), variants, f.judge(), {3, 0.25});
  EXPECT_EQ(f.calls.size(), 3u);
  EXPECT_EQ(r.trials.size(), 3u);
  EXPECT_EQ(r.unraced.size(), 4u);
  EXPECT_THAT(r.trials.back().outcome, HasSubstr("the budget of 3 runs was spent"));
  EXPECT_EQ(r.leader, tile("8"));

  FakeJudge g;
  g.ratio = f.ratio;
  auto r8 = race(tile("8"), variants, g.judge(), {8, 0.25});
  EXPECT_EQ(g.calls.size(), 8u);
  EXPECT_TRUE(r8.unraced.empty());
  EXPECT_DOUBLE_EQ(g.calls[7].budget_s, 0.5);
  // The default budget: 7 runs of round 1, then the 4 better ties of 7 would take 4 more; the
  // budget of 10 times 3 of them.
  FakeJudge h;
  h.ratio = f.ratio;
  race(tile("8"), variants, h.judge(), {});
  EXPECT_LE(h.calls.size(), static_cast<std::size_t>(RaceOptions{}.max_runs));
  EXPECT_EQ(h.calls.size(), 10u);
}

}  // namespace
}  // namespace kforge::agents
