// A bench row reads whole: a task that failed has no time and no dangling unit, a long reason is
// cut at a word's end with "…", and a busy row shows no figure.
#include "kforge/cli/bench_row.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kforge::cli {
namespace {

using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::Not;

eval::SuiteTaskResult with(eval::Evaluation e) { return {"12p_rmsnorm", "evaluated", e}; }

TEST(BenchRow, AFailedTaskHasNoDanglingUnit) {
  eval::Evaluation e;
  e.verdict = eval::Verdict::compile_error;
  auto line = bench_progress_line(with(e), 3, 50);
  EXPECT_THAT(line, HasSubstr("compile_error"));
  EXPECT_THAT(line, Not(HasSubstr(" ms")));
  EXPECT_THAT(line, Not(EndsWith(" ")));
  eval::SuiteTaskResult unloaded{"9p_broken", "error: task.toml: bad size", std::nullopt};
  EXPECT_THAT(bench_progress_line(unloaded, 4, 50), Not(HasSubstr(" ms")));
}

TEST(BenchRow, ATimedTaskShowsItsTimeAndSpeedup) {
  eval::Evaluation e;
  e.verdict = eval::Verdict::correct;
  e.candidate = eval::TimingStats{40, 0.5, 0.45, 0.6, 0.44};
  e.speedup = eval::SpeedupStats{1.52, 1.4, 1.6, 1.5, 1.54};
  auto line = bench_progress_line(with(e), 3, 50);
  EXPECT_THAT(line, HasSubstr("[ 3/50] 12p_rmsnorm"));
  EXPECT_THAT(line, HasSubstr(" ms  1.52x"));
  e.machine_busy = true;
  EXPECT_THAT(bench_progress_line(with(e), 3, 50), HasSubstr(" ms  busy"));
  EXPECT_EQ(bench_cells(with(e))[7], "busy");
}

TEST(BenchRow, ALongReasonIsCutAtAWordsEnd) {
  std::string reason = "output 'y' differs: ";
  while (reason.size() < 400) reason += "mismatched elements cluster along the last axis; ";
  auto line = reason_line(reason);
  EXPECT_LE(line.size(), 300 + std::string("…").size());
  ASSERT_THAT(line, EndsWith("…"));
  const std::string kept = line.substr(0, line.size() - std::string("…").size());
  ASSERT_EQ(reason.compare(0, kept.size(), kept), 0) << "not a prefix: " << line;
  EXPECT_EQ(reason[kept.size()], ' ') << "cut inside a word: " << line;
  EXPECT_EQ(reason_line("short reason"), "short reason");
}

}  // namespace
}  // namespace kforge::cli
