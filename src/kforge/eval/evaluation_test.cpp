// An evaluation's JSON form survives text that is not UTF-8: a kernel that prints "\xff\xfe" or
// whose output is cut inside a character still serializes (nlohmann::json::dump would throw).
#include "kforge/eval/evaluation.h"

#include <gtest/gtest.h>

#include "kforge/core/utf8.h"
#include "kforge/eval/evaluation_json.h"

namespace kforge::eval {
namespace {

TEST(EvaluationJson, InvalidUtf8InKernelOutputIsReplaced) {
  Evaluation e;
  e.verdict = Verdict::incorrect;
  e.reason = "output 'y' differs: the kernel printed \xff";
  e.kernel_output = std::string("garbage \xff\xfe then a cut euro \xE2\x82");
  std::string dump;
  ASSERT_NO_THROW(dump = to_json(e).dump());
  EXPECT_EQ(core::first_invalid_utf8(dump), std::string::npos);
  auto back = nlohmann::json::parse(dump);
  EXPECT_EQ(back["kernel_output"].get<std::string>(),
            "garbage \xEF\xBF\xBD\xEF\xBF\xBD then a cut euro \xEF\xBF\xBD");
  EXPECT_EQ(back["reason"].get<std::string>(),
            "output 'y' differs: the kernel printed \xEF\xBF\xBD");
}

// The phases in JSON account for the waits inside total_s: the machine lock's and quiet's.
TEST(EvaluationJson, PhasesCarryTheWaits) {
  Evaluation e;
  e.phases.total_s = 196.03;
  e.phases.time_s = 5.84;
  e.lock_wait_s = 184.2;
  e.quiet_wait.waited_s = 6;
  auto phases = to_json(e)["phases"];
  EXPECT_DOUBLE_EQ(phases["lock_wait_s"].get<double>(), 184.2);
  EXPECT_DOUBLE_EQ(phases["quiet_wait_s"].get<double>(), 6);
  EXPECT_DOUBLE_EQ(phases["total_s"].get<double>(), 196.03);
}

// The load verdict and its samples, and the notes on the roofline and the partner, go to JSON and
// come back (a resumed session keeps them; a cluster node's evaluation reaches the driver so).
TEST(EvaluationJson, BusyAndItsReasonRoundTrip) {
  Evaluation e;
  e.verdict = Verdict::correct;
  e.machine_busy = true;
  e.busy_reason = "3.0 runnable tasks outside kforge on average while it used 2 of 2 CPUs";
  e.load_average = 4.5;
  e.load_samples = {{1.0, 4.5, 4, 1, 3, 0.0, 2}, {1.3, 4.6, 5, 1, 4, 0.02, 2}};
  e.roofline_note = "cache-resident working set";
  e.partner_note = "OpenBLAS runs its generic Prescott kernels";  // a node's, back to the driver
  auto j = to_json(e);
  EXPECT_EQ(j["machine_load"]["busy"], true);
  EXPECT_EQ(j["machine_load"]["samples"].size(), 2u);
  EXPECT_EQ(j["machine_load"]["samples"][1]["outside_running"], 4);
  auto back = evaluation_from_json(j);
  EXPECT_TRUE(back.machine_busy);
  EXPECT_EQ(back.busy_reason, e.busy_reason);
  EXPECT_EQ(back.load_samples.size(), 2u);
  EXPECT_DOUBLE_EQ(back.load_samples[1].steal, 0.02);
  EXPECT_EQ(back.roofline_note, e.roofline_note);
  EXPECT_EQ(back.partner_note, e.partner_note);
}

// A busy run's ratio is no result: "speedup" is null (every reader of the JSON sees no figure),
// the ratio kept apart under "busy_speedup" and read back as such.
TEST(EvaluationJson, ABusyRunGivesNoSpeedupFigure) {
  Evaluation e;
  e.verdict = Verdict::correct;
  e.speedup = SpeedupStats{8.63, 7.9, 9.1};
  e.speedup->ci_low = 8.4;
  e.speedup->ci_high = 8.9;
  e.machine_busy = true;
  auto j = to_json(e);
  EXPECT_TRUE(j["speedup"].is_null());
  EXPECT_TRUE(j["speedup_ci95"].is_null());
  EXPECT_DOUBLE_EQ(j["busy_speedup"]["median"].get<double>(), 8.63);
  auto back = evaluation_from_json(j);
  ASSERT_TRUE(back.speedup && back.machine_busy);
  EXPECT_DOUBLE_EQ(back.speedup->median, 8.63);
  EXPECT_DOUBLE_EQ(back.speedup->ci_high, 8.9);
  e.machine_busy = false;
  EXPECT_DOUBLE_EQ(to_json(e)["speedup"].get<double>(), 8.63);
  EXPECT_TRUE(to_json(e)["busy_speedup"].is_null());
}

}  // namespace
}  // namespace kforge::eval
