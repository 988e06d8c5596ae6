#include "kforge/eval/cpu_choice.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

namespace kforge::eval {
namespace {

TEST(CpuChoice, ParsesEachCpusBusyTicksAndSkipsTheAggregate) {
  auto busy = parse_per_cpu_busy(
      "cpu  100 0 50 9000 10 0 0 0 0 0\n"
      "cpu0 10 1 5 4000 7 2 3 4 0 0\n"
      "cpu2 1 0 0 4000 0 0 0 0 0 0\n"
      "intr 12345\n");
  ASSERT_TRUE(busy);
  // user + nice + system + irq + softirq + steal; idle and iowait are not busy.
  EXPECT_EQ(*busy, (std::vector<std::uint64_t>{25, 0, 1}));
  EXPECT_FALSE(parse_per_cpu_busy("intr 1\nctxt 2\n"));
}

TEST(CpuChoice, TakesTheLeastBusyWindowOfNeighbours) {
  const std::vector<int> allowed = {0, 1, 2, 3};
  // CPU 0 busy (another evaluation's kernel), the rest idle: one thread goes elsewhere.
  auto one = choose_cpus(allowed, 1, {5, 0, 0, 0}, 0);
  EXPECT_EQ(one, (std::vector<int>{1}));
  // Two threads: neighbours, the busy CPU left out.
  EXPECT_EQ(choose_cpus(allowed, 2, {5, 0, 0, 4}, 0), (std::vector<int>{1, 2}));
  // What kforge may not use is never chosen, busy or not.
  EXPECT_EQ(choose_cpus({2, 5, 7}, 1, {0, 0, 0, 0, 0, 3, 0, 9}, 0), (std::vector<int>{2}));
  EXPECT_EQ(choose_cpus({2, 5, 7}, 1, {0, 0, 6, 0, 0, 3, 0, 9}, 0), (std::vector<int>{5}));
}

TEST(CpuChoice, EquallyIdleWindowsAreSpreadByTheRotation) {
  const std::vector<int> allowed = {0, 1, 2, 3};
  const std::vector<std::uint64_t> idle = {0, 0, 0, 0};
  std::set<int> chosen;
  for (unsigned r = 0; r < 4; ++r) {
    auto c = choose_cpus(allowed, 1, idle, r);
    ASSERT_EQ(c.size(), 1u);
    chosen.insert(c[0]);
  }
  EXPECT_EQ(chosen.size(), 4u);  // four evaluations started at once: one CPU each
  // The rotation only breaks ties: it never picks a busier window.
  EXPECT_EQ(choose_cpus(allowed, 1, {0, 3, 3, 3}, 2), (std::vector<int>{0}));
}

TEST(CpuChoice, AsManyThreadsAsCpusTakesThemAllTheLeastBusyFirst) {
  EXPECT_EQ(choose_cpus({0, 1}, 8, {}, 0), (std::vector<int>{0, 1}));
  // Thread 0 (which also runs the serial code) goes to the idle CPU; the others follow in a circle.
  EXPECT_EQ(choose_cpus({0, 1}, 2, {9, 0}, 0), (std::vector<int>{1, 0}));
  EXPECT_EQ(choose_cpus({0, 1, 2, 3}, 4, {3, 3, 0, 3}, 0), (std::vector<int>{2, 3, 0, 1}));
  // Equally busy: the rotation decides which comes first.
  EXPECT_EQ(choose_cpus({0, 1}, 2, {9, 9}, 1), (std::vector<int>{1, 0}));
}

TEST(CpuChoice, AWindowStartsAtItsLeastBusyCpu) {
  EXPECT_EQ(choose_cpus({0, 1, 2, 3}, 2, {9, 2, 0, 9}, 0), (std::vector<int>{2, 1}));
}

TEST(CpuChoice, NowChoosesAllowedCpus) {
  auto allowed = allowed_cpus();
  ASSERT_FALSE(allowed.empty());
  auto c = choose_cpus_now(1, 0.01);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_NE(std::find(allowed.begin(), allowed.end(), c[0]), allowed.end());
  auto all = choose_cpus_now(static_cast<int>(allowed.size()));
  std::sort(all.begin(), all.end());
  EXPECT_EQ(all, allowed);
}

// Without a sample (a check-only evaluation), the CPUs are still distinct allowed ones.
TEST(CpuChoice, WithoutASampleTheRotationPlacesTheThreads) {
  const auto allowed = allowed_cpus();
  const int threads = static_cast<int>(std::min<std::size_t>(2, allowed.size()));
  auto cpus = choose_cpus_now(threads, 0);
  ASSERT_EQ(cpus.size(), static_cast<std::size_t>(threads));
  for (int c : cpus) EXPECT_NE(std::find(allowed.begin(), allowed.end(), c), allowed.end()) << c;
  if (threads == 2) {
    EXPECT_NE(cpus[0], cpus[1]);
  }
}

}  // namespace
}  // namespace kforge::eval
