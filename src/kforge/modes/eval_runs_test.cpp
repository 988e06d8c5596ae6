// `kforge eval --runs N`: the same pair timed N times in fresh processes, and the spread between
// the runs reported beside the one-run interval (run_spread.h says why one run's is not enough).
#include <gmock/gmock.h>

#include "kforge/modes/cli_test_util.h"

namespace kforge::modes {
namespace {

using ::testing::HasSubstr;

class EvalRuns : public CliScenario {};

TEST_F(EvalRuns, ThreeRunsOfOnePairReportTheirSpread) {
  auto r = run({"eval", "12p_rmsnorm",
                (core::source_dir() / "bench/jaxbench/12p_rmsnorm/expert.cpp").string(), "--role",
                "expert", "--size", "ci", "--budget", "0.2", "--runs", "3", "--json"});
  ASSERT_TRUE(r.success()) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.contains("between_runs")) << r.out;
  const auto& b = j["between_runs"];
  EXPECT_EQ(b["runs"], 3);
  if (b.contains("busy_runs")) {
    // A busy machine gives no figure, not even a spread: the runs were still made.
    EXPECT_GT(b["busy_runs"].get<int>(), 0);
    EXPECT_FALSE(b.contains("median"));
    return;
  }
  ASSERT_EQ(b["run_medians"].size(), 3u);
  const double lo = b["ci95_across_runs"][0], hi = b["ci95_across_runs"][1];
  for (const auto& m : b["run_medians"]) {
    EXPECT_LE(lo, m.get<double>());
    EXPECT_GE(hi, m.get<double>());
  }
  EXPECT_LE(b["low"].get<double>(), b["median"].get<double>());
  EXPECT_GE(b["high"].get<double>(), b["median"].get<double>());
}

TEST_F(EvalRuns, OneRunPrintsNoSpreadAndTheTableNamesIt) {
  const auto kernel = (core::source_dir() / "bench/jaxbench/12p_rmsnorm/expert.cpp").string();
  auto one = run({"eval", "12p_rmsnorm", kernel, "--role", "expert", "--size", "ci", "--budget",
                  "0.2", "--json"});
  ASSERT_TRUE(one.success()) << one.err;
  EXPECT_FALSE(nlohmann::json::parse(one.out).contains("between_runs"));
  auto two = run({"eval", "12p_rmsnorm", kernel, "--role", "expert", "--size", "ci", "--budget",
                  "0.2", "--runs", "2"});
  ASSERT_TRUE(two.success()) << two.err;
  EXPECT_THAT(two.out, HasSubstr("between runs"));
}

}  // namespace
}  // namespace kforge::modes
