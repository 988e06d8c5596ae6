// The bounded wait for a quiet machine, on made-up load samples and a fake clock: it waits while
// outside work takes the CPUs, stops at the bound, shortens its bound while the machine stays
// busy, and never waits for what no quiet can cure (more threads than CPUs).
#include "kforge/eval/quiet_wait.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <deque>

namespace kforge::eval {
namespace {

using ::testing::HasSubstr;

LoadSample sample(int outside, int cpus = 2) {
  LoadSample s;
  s.outside_running = outside;
  s.cpus = cpus;
  s.load_1min = outside;
  return s;
}

// A scripted machine: each probe takes the next reading (the last one repeats); sleeping moves the
// clock.
struct FakeMachine {
  std::deque<int> outside;
  double clock = 0;
  int probes = 0;
  QuietWaitProbe probe() {
    return {[this] {
              ++probes;
              int o = outside.front();
              if (outside.size() > 1) outside.pop_front();
              return std::vector<LoadSample>{sample(o)};
            },
            [this](double s) { clock += s; }, [this] { return clock; }};
  }
};

TEST(QuietWait, AQuietMachineIsTimedAtOnce) {
  FakeMachine m{{0}};
  QuietWaiter w(60);
  auto r = w.wait(2, m.probe(), nullptr);
  EXPECT_FALSE(r.busy_before);
  EXPECT_TRUE(r.quiet);
  EXPECT_EQ(r.waited_s, 0);
  EXPECT_EQ(m.probes, 1);
}

// The probe taken while the kernels loaded: quiet, it is the first probe and the timing starts
// without another (the samples go on to the timing's load record); busy, it may have seen kforge's
// own start, so a fresh probe decides.
TEST(QuietWait, AQuietProbeTakenBeforeIsNotTakenAgain) {
  FakeMachine m{{3}};
  QuietWaiter w(60);
  auto r = w.wait(2, m.probe(), nullptr, {sample(0), sample(0)});
  EXPECT_TRUE(r.quiet);
  EXPECT_FALSE(r.busy_before);
  EXPECT_EQ(m.probes, 0);
  EXPECT_EQ(r.samples.size(), 2u);
}

TEST(QuietWait, ABusyProbeTakenBeforeIsProbedAfresh) {
  FakeMachine m{{0}};
  QuietWaiter w(60);
  auto r = w.wait(2, m.probe(), nullptr, {sample(3)});
  EXPECT_TRUE(r.quiet);
  EXPECT_FALSE(r.busy_before);
  EXPECT_EQ(m.probes, 1);
  ASSERT_EQ(r.samples.size(), 1u);
  EXPECT_EQ(r.samples[0].outside_running, 0);

  FakeMachine busy{{3, 3, 0}};
  auto waited = w.wait(2, busy.probe(), nullptr, {sample(3)});
  EXPECT_TRUE(waited.busy_before);
  EXPECT_TRUE(waited.quiet);
  EXPECT_EQ(busy.probes, 3);
}

TEST(QuietWait, WaitsWhileOutsideWorkTakesTheCpusAndSaysSo) {
  FakeMachine m{{3, 3, 3, 0}};
  QuietWaiter w(60);
  std::vector<std::string> said;
  auto r = w.wait(2, m.probe(), [&](std::string_view s) { said.emplace_back(s); });
  EXPECT_TRUE(r.busy_before);
  EXPECT_TRUE(r.quiet);
  EXPECT_DOUBLE_EQ(r.waited_s, 3);
  ASSERT_EQ(said.size(), 2u);
  EXPECT_THAT(said[0], HasSubstr("machine busy ("));
  EXPECT_THAT(said[0], HasSubstr("waiting up to 60 s for quiet"));
  // The line names the setting that bounds the wait, so a user knows how to shorten it.
  EXPECT_THAT(said[0], HasSubstr("KFORGE_QUIET_WAIT_S sets the bound; 0: no wait"));
  EXPECT_THAT(said[1], HasSubstr("quiet after 3 s"));
}

// One free CPU absorbs one outside task when the timing uses one thread: not busy for it.
TEST(QuietWait, OnlyTheCpusTheTimingUsesCount) {
  FakeMachine m{{1}};
  QuietWaiter w(60);
  EXPECT_TRUE(w.wait(1, m.probe(), nullptr).quiet);
  FakeMachine m2{{1}};
  EXPECT_FALSE(w.wait(2, m2.probe(), nullptr).quiet);
}

TEST(QuietWait, StopsAtTheBoundAndShortensItWhileTheMachineStaysBusy) {
  FakeMachine m{{4}};
  QuietWaiter w(20);
  std::vector<std::string> said;
  auto r = w.wait(2, m.probe(), [&](std::string_view s) { said.emplace_back(s); });
  EXPECT_FALSE(r.quiet);
  EXPECT_LE(r.waited_s, 20);
  EXPECT_GE(r.waited_s, 19);
  EXPECT_THAT(said.back(), HasSubstr("still busy after"));
  auto second =
      w.wait(2, m.probe(), nullptr);  // the machine did not quieten: a quarter of the bound
  EXPECT_DOUBLE_EQ(second.bound_s, 5);
  EXPECT_LE(second.waited_s, 5);
  FakeMachine quiet{{0}};
  EXPECT_TRUE(w.wait(2, quiet.probe(), nullptr).quiet);  // quiet again: the full bound returns
  EXPECT_DOUBLE_EQ(w.wait(2, m.probe(), nullptr).bound_s, 20);  // and this one ends busy
  FakeMachine quieting{{4, 0}};
  auto q = w.wait(2, quieting.probe(), nullptr);
  EXPECT_DOUBLE_EQ(q.bound_s, 5);
  EXPECT_TRUE(q.quiet);
  EXPECT_DOUBLE_EQ(q.waited_s, 1);
  EXPECT_DOUBLE_EQ(w.wait(2, m.probe(), nullptr).bound_s,
                   20);  // quiet within the bound: full bound again
}

// A bound shorter than one poll still waits it out (a quarter of KFORGE_QUIET_WAIT_S=1 is 0.25 s).
TEST(QuietWait, ABoundUnderOnePollStillWaits) {
  FakeMachine m{{4}};
  QuietWaiter w(0.5);
  EXPECT_DOUBLE_EQ(w.wait(2, m.probe(), nullptr).waited_s, 0.5);
}

TEST(QuietWait, ABoundOfZeroProbesOnceAndNeverWaits) {
  FakeMachine m{{4}};
  QuietWaiter w(0);
  auto r = w.wait(2, m.probe(), nullptr);
  EXPECT_TRUE(r.busy_before);
  EXPECT_FALSE(r.quiet);
  EXPECT_EQ(r.waited_s, 0);
  EXPECT_EQ(m.probes, 1);
}

// More threads than CPUs is busy whatever else runs; waiting cannot cure it, so no wait.
TEST(QuietWait, OversubscriptionIsNotWaitedFor) {
  FakeMachine m{{0}};
  QuietWaiter w(60);
  auto r = w.wait(8, m.probe(), nullptr);
  EXPECT_TRUE(r.quiet);
  EXPECT_EQ(r.waited_s, 0);
}

// Ctrl-C during the wait: it ends at the next probe, not at its bound, and says nothing of a
// timing that will not come.
TEST(QuietWait, CtrlCEndsTheWaitAtTheNextProbe) {
  FakeMachine m{{3}};  // busy for ever
  std::atomic<bool> cancel{false};
  QuietWaiter w(60);
  w.set_cancel(&cancel);
  std::vector<std::string> said;
  auto probe = m.probe();
  auto sleep = probe.sleep;
  probe.sleep = [&](double s) {
    sleep(s);
    if (m.clock >= 3) cancel = true;
  };
  auto r = w.wait(2, probe, [&](std::string_view s) { said.emplace_back(s); });
  EXPECT_FALSE(r.quiet);
  EXPECT_DOUBLE_EQ(r.waited_s, 3);
  ASSERT_EQ(said.size(), 1u);  // only "machine busy …: waiting"
}

}  // namespace
}  // namespace kforge::eval
