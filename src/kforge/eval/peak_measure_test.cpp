// The peak-measuring loop, on a fake clock, fake runs and a fake load: it stops once two quiet runs
// agree, waits a bounded time for a busy machine, keeps the best of every run, and calls a
// measurement that never got two agreeing quiet runs (or that is implausible) provisional.
#include "kforge/eval/peak_measure.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <string>
#include <vector>

namespace kforge::eval {
namespace {

struct Fake {
  double t = 0;
  std::vector<double> fma_all;  // one value per run (the last repeats); the other rates follow it
  std::deque<bool> busy;        // one per probe; the last repeats
  int runs = 0, probes = 0;
  double sleep_total = 0;
  std::vector<std::string> said;

  PeakMeasureIo io() {
    return {.run_once = [this]() -> Result<nlohmann::json> {
              t += 2;  // a run takes two seconds
              const double v = fma_all[std::min<std::size_t>(runs++, fma_all.size() - 1)];
              return nlohmann::json{{"fma_gflops_1", v / 2},
                                    {"fma_gflops_all", v},
                                    {"triad_gbps_1", v / 10},
                                    {"triad_gbps_all", v / 5},
                                    {"isa_used", "avx2"}};
            },
            .probe =
                [this] {
                  ++probes;
                  bool b = busy.front();
                  if (busy.size() > 1) busy.pop_front();
                  LoadVerdict v;
                  v.busy = b;
                  v.outside_running = b ? 3 : 0;
                  v.reason = b ? "3.0 runnable tasks outside kforge" : "";
                  return v;
                },
            .sleep = [this](double s) { t += s, sleep_total += s; },
            .now = [this] { return t; },
            .progress = [this](std::string_view m) { said.emplace_back(m); }};
  }
};

Fake fake(std::vector<double> values, std::vector<bool> busy) {
  Fake f;
  f.fma_all = values;
  f.busy.assign(busy.begin(), busy.end());
  return f;
}

PeakMeasureOptions options() {
  PeakMeasureOptions o;
  o.budget_s = 30;
  o.cpus = 2;
  return o;
}

TEST(MeasurePeaks, TwoAgreeingQuietRunsAreEnough) {
  auto f = fake({100, 99}, {false});
  auto m = measure_peaks(options(), f.io());
  ASSERT_TRUE(m) << m.error().message;
  EXPECT_EQ(f.runs, 2);
  EXPECT_FALSE(m->provisional) << m->provisional_reason;
  EXPECT_DOUBLE_EQ(m->best.fma_gflops_all, 100);
  EXPECT_NEAR(m->spread.fma_gflops_all, 0.01, 1e-9);
  EXPECT_EQ(m->details.value("isa_used", ""), "avx2");
}

TEST(MeasurePeaks, RepeatsUntilTwoAgreeAndKeepsTheBest) {
  auto f = fake({100, 80, 98}, {false});
  auto m = measure_peaks(options(), f.io());
  ASSERT_TRUE(m);
  EXPECT_EQ(f.runs, 3);
  EXPECT_FALSE(m->provisional);
  EXPECT_DOUBLE_EQ(m->best.fma_gflops_all, 100);
  EXPECT_NEAR(m->spread.fma_gflops_all, 0.2, 1e-9);
}

TEST(MeasurePeaks, WaitsForABusyMachineToQuietenThenMeasures) {
  auto f = fake({100, 100}, {true, true, true, false});
  auto m = measure_peaks(options(), f.io());
  ASSERT_TRUE(m);
  EXPECT_GT(f.sleep_total, 0);
  EXPECT_FALSE(m->provisional) << m->provisional_reason;
  ASSERT_FALSE(f.said.empty());
  EXPECT_NE(f.said.front().find("the machine is busy"), std::string::npos) << f.said.front();
  // The wait names the setting that bounds it.
  EXPECT_NE(f.said.front().find("KFORGE_PEAK_BUDGET_S"), std::string::npos) << f.said.front();
}

// A machine that never quietens: the wait is bounded (half the budget), the runs go on to the
// budget's end, the best of them is kept, and the result is provisional with the load it saw.
TEST(MeasurePeaks, NeverQuietIsProvisionalAndBounded) {
  auto f = fake({40, 46, 45, 44, 43, 42, 41, 40}, {true});
  auto m = measure_peaks(options(), f.io());
  ASSERT_TRUE(m);
  EXPECT_LE(f.t, 30 + 2);
  EXPECT_LE(f.sleep_total, 15 + 1);
  EXPECT_TRUE(m->provisional);
  EXPECT_NE(m->provisional_reason.find("busy"), std::string::npos) << m->provisional_reason;
  EXPECT_NE(m->provisional_reason.find("3.0 runnable tasks"), std::string::npos)
      << m->provisional_reason;
  EXPECT_TRUE(m->worst_load.busy);
  EXPECT_DOUBLE_EQ(m->best.fma_gflops_all, 46);
  EXPECT_EQ(m->quiet_runs, 0);
}

TEST(MeasurePeaks, AllCpusSlowerThanOneIsProvisional) {
  EXPECT_EQ(implausible_peaks({53.0, 46.6, 10, 12}, 2),
            "FMA on all 2 CPUs (46.6 GFLOP/s) below one CPU's (53.0)");
  EXPECT_EQ(implausible_peaks({53.0, 100, 10, 12}, 2), "");
  EXPECT_EQ(implausible_peaks({53.0, 46.6, 10, 12}, 1), "");  // one CPU: "all" is one
  EXPECT_EQ(implausible_peaks({70, 71, 11.2, 9.2}, 2),
            "");  // less bandwidth on two threads can be real
  EXPECT_NE(implausible_peaks({0, 100, 10, 12}, 2), "");
}

TEST(MeasurePeaks, AFailingFirstRunIsAnError) {
  Fake f = fake({1}, {false});
  auto io = f.io();
  io.run_once = []() -> Result<nlohmann::json> { return Error{"kforge-peak: not found"}; };
  auto m = measure_peaks(options(), io);
  ASSERT_FALSE(m);
  EXPECT_NE(m.error().message.find("kforge-peak"), std::string::npos);
}

}  // namespace
}  // namespace kforge::eval
