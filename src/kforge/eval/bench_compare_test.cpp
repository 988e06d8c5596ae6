// Comparing two bench results: what each task's row says, and which rows fire `kforge compare`'s
// --fail-on rule (a verdict that got worse, a slowdown shown to be real), so that a script sees
// a regression in the exit status.
#include "kforge/eval/bench_compare.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kforge::eval {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

BenchTaskResult correct(double s, double lo, double hi) { return {"correct", s, lo, hi}; }

// A before and after where every kind of change appears once.
struct Pair {
  BenchResults a = {
      {"t_same", correct(2.0, 1.9, 2.1)},    {"t_broke", correct(1.5, 1.4, 1.6)},
      {"t_slower", correct(2.0, 1.9, 2.1)},  {"t_noise_slower", correct(2.0, 1.8, 2.2)},
      {"t_dropped", correct(1.0, 0.9, 1.1)}, {"t_still_broken", {"incorrect", {}, {}, {}}}};
  BenchResults b = {{"t_same", correct(2.0, 1.9, 2.1)},
                    {"t_broke", {"compile_error", {}, {}, {}}},
                    {"t_slower", correct(1.0, 0.95, 1.05)},
                    {"t_noise_slower", correct(1.9, 1.7, 2.1)},
                    {"t_still_broken", {"compile_error", {}, {}, {}}}};
};

TEST(BenchCompare, RegressionFiresOnAWorseVerdictAndARealSlowdown) {
  Pair p;
  auto c = compare_bench(p.a, p.b);
  EXPECT_THAT(
      rule_failures(c, FailRule::regression),
      ElementsAre("t_broke: correct → compile_error", "t_slower: B/A 0.50x, intervals apart"));
}

TEST(BenchCompare, AnyWorseAlsoFiresWithinNoiseAndOnADroppedTask) {
  Pair p;
  auto c = compare_bench(p.a, p.b);
  EXPECT_THAT(rule_failures(c, FailRule::any_worse),
              ElementsAre("t_broke: correct → compile_error", "t_dropped: correct → absent",
                          "t_noise_slower: B/A 0.95x, within noise",
                          "t_slower: B/A 0.50x, intervals apart"));
}

TEST(BenchCompare, ThresholdForgivesSmallSlowdownsNotVerdicts) {
  Pair p;
  auto c = compare_bench(p.a, p.b);
  EXPECT_THAT(rule_failures(c, FailRule::any_worse, 0.10),
              ElementsAre("t_broke: correct → compile_error", "t_dropped: correct → absent",
                          "t_slower: B/A 0.50x, intervals apart"));
  EXPECT_THAT(rule_failures(c, FailRule::regression, 0.60),
              ElementsAre("t_broke: correct → compile_error"));
  EXPECT_THAT(rule_failures(c, FailRule::never), IsEmpty());
}

TEST(BenchCompare, NothingFiresWhenBIsAsGoodOrBetter) {
  BenchResults a = {{"t", correct(1.0, 0.98, 1.02)}, {"u", {"incorrect", {}, {}, {}}}};
  BenchResults b = {{"t", correct(1.5, 1.45, 1.55)}, {"u", correct(1.0, 0.9, 1.1)}};
  EXPECT_THAT(rule_failures(compare_bench(a, b), FailRule::any_worse), IsEmpty());
}

// A task timed busy has no speedup, in a file written now ("speedup": null, busy_speedup) and in
// one written before busy readings were kept apart (a number under "speedup", machine_load.busy).
TEST(BenchCompare, BusyTasksHaveNoFigureAndAreNotCompared) {
  auto task = [](const char* id, nlohmann::json evaluation) {
    evaluation["task"] = id;
    evaluation["verdict"] = "correct";
    return nlohmann::json{{"task", id}, {"evaluation", evaluation}};
  };
  nlohmann::json a = {{"tasks",
                       {task("t_new", {{"speedup", 2.0}, {"speedup_ci95", {1.9, 2.1}}}),
                        task("t_old", {{"speedup", 2.0}, {"speedup_ci95", {1.9, 2.1}}})}}};
  nlohmann::json b = {{"tasks",
                       {task("t_new", {{"speedup", nullptr},
                                       {"busy_speedup", {{"median", 0.51}, {"ci95", {0.21, 2.49}}}},
                                       {"machine_load", {{"busy", true}}}}),
                        task("t_old", {{"speedup", 0.51},
                                       {"speedup_ci95", {0.21, 2.49}},
                                       {"machine_load", {{"busy", true}}}})}}};
  auto ra = parse_bench_results(a, "a"), rb = parse_bench_results(b, "b");
  ASSERT_TRUE(ra && rb);
  for (const char* id : {"t_new", "t_old"}) {
    EXPECT_TRUE(rb->at(id).busy) << id;
    EXPECT_FALSE(rb->at(id).speedup) << id;
    EXPECT_FALSE(ra->at(id).busy) << id;
  }
  auto c = compare_bench(*ra, *rb);
  for (const auto& row : c["tasks"]) {
    EXPECT_EQ(row["outcome"], "not compared: B timed busy") << row.dump();
    EXPECT_TRUE(row["ratio"].is_null());
    EXPECT_TRUE(row["b_busy"].get<bool>());
  }
  EXPECT_EQ(c["summary"]["busy"], 2);
  EXPECT_EQ(c["summary"]["compared"], 0);
  EXPECT_THAT(rule_failures(c, FailRule::any_worse), IsEmpty());
  auto plotted = bench_speedups(*rb)["tasks"];
  EXPECT_TRUE(plotted[0]["busy"].get<bool>());
  EXPECT_TRUE(plotted[0]["speedup"].is_null());
}

TEST(BenchCompare, RuleNames) {
  EXPECT_EQ(parse_fail_rule("regression"), FailRule::regression);
  EXPECT_EQ(parse_fail_rule("any-worse"), FailRule::any_worse);
  EXPECT_EQ(parse_fail_rule("never"), FailRule::never);
  EXPECT_FALSE(parse_fail_rule("always"));
}

}  // namespace
}  // namespace kforge::eval
