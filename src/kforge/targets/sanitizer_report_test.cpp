// Reading compute-sanitizer's reports (tests/sanitizer: racecheck's clean summary as the H200
// printed it, and memcheck and racecheck texts in compute-sanitizer 13's layout) and what each
// means for the verdict: errors fail the kernel and are named; a clean summary of any tool
// passes it; a text without a summary is a note, never a verdict.
#include "kforge/targets/sanitizer_report.h"

#include <gtest/gtest.h>

#include "kforge/core/fs.h"
#include "kforge/core/paths.h"

namespace kforge::eval {
namespace {

std::string fixture(const std::string& name) {
  auto text = core::read_text(core::source_dir() / "tests" / "sanitizer" / name);
  EXPECT_TRUE(text.ok()) << name;
  return text ? *text : std::string{};
}

using Outcome = SanitizerReport::Outcome;

TEST(SanitizerReport, RacechecksCleanSummaryFromTheH200IsClean) {
  auto r = read_sanitizer_report(fixture("racecheck_clean_h200.txt"));
  EXPECT_EQ(r.outcome, Outcome::clean);
  EXPECT_EQ(r.errors, 0);
  EXPECT_EQ(r.warnings, 0);
}

TEST(SanitizerReport, MemchecksCleanSummaryIsClean) {
  auto r = read_sanitizer_report(fixture("memcheck_clean.txt"));
  EXPECT_EQ(r.outcome, Outcome::clean);
}

TEST(SanitizerReport, AnOutOfBoundsWriteIsFoundAndNamedWithItsPlace) {
  auto r = read_sanitizer_report(fixture("memcheck_out_of_bounds.txt"));
  ASSERT_EQ(r.outcome, Outcome::found);
  EXPECT_EQ(r.errors, 2);
  ASSERT_EQ(r.findings.size(), 2u);
  EXPECT_EQ(r.findings[0],
            "Invalid __global__ write of size 4 bytes at past_end(float *)+0x70 in "
            "/tmp/kforge-cache/cuda/3f9a/kernel.cu:7 (Address 0x7f3c8e000400 is out of bounds)");
  EXPECT_EQ(r.findings[1].rfind("Program hit cudaErrorLaunchFailure (error 719)", 0), 0u);
  EXPECT_EQ(describe_sanitizer_findings(r).rfind("2 errors: Invalid __global__ write", 0), 0u);
}

TEST(SanitizerReport, ARaceIsFoundWithBothSidesOfIt) {
  auto r = read_sanitizer_report(fixture("racecheck_race.txt"));
  ASSERT_EQ(r.outcome, Outcome::found);
  EXPECT_EQ(r.errors, 1);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0],
            "Race reported between Write access at block_sum(const float *, float *)+0x1c0 in "
            "/tmp/kforge-cache/cuda/77e1/kernel.cu:11 and Read access at block_sum(const float *, "
            "float *)+0x2a0 in /tmp/kforge-cache/cuda/77e1/kernel.cu:13 [248 hazards]");
  EXPECT_EQ(describe_sanitizer_findings(r).rfind("1 error: Race reported between Write", 0), 0u);
}

TEST(SanitizerReport, RacecheckWarningsAloneAreCleanAndCounted) {
  auto r = read_sanitizer_report(fixture("racecheck_warnings.txt"));
  EXPECT_EQ(r.outcome, Outcome::clean);
  EXPECT_EQ(r.errors, 0);
  EXPECT_EQ(r.warnings, 2);
}

TEST(SanitizerReport, SingularAndPluralFormsAndTheOtherToolsSummaries) {
  EXPECT_EQ(read_sanitizer_report("========= ERROR SUMMARY: 1 error\n").errors, 1);
  EXPECT_EQ(read_sanitizer_report("========= ERROR SUMMARY: 12 errors\n").errors, 12);
  auto r = read_sanitizer_report(
      "========= RACECHECK SUMMARY: 3 hazards displayed (2 errors, 1 warning)\n");
  EXPECT_EQ(r.errors, 2);
  EXPECT_EQ(r.warnings, 1);
  // synccheck and initcheck close like memcheck.
  auto sync = read_sanitizer_report(
      "========= COMPUTE-SANITIZER\n"
      "========= Barrier error detected. Divergent thread(s) in warp\n"
      "=========     at reduce(float *)+0x2f0 in /tmp/k.cu:20\n"
      "========= ERROR SUMMARY: 1 error\n");
  ASSERT_EQ(sync.outcome, Outcome::found);
  EXPECT_EQ(sync.findings.at(0),
            "Barrier error detected. Divergent thread(s) in warp at reduce(float *)+0x2f0 in "
            "/tmp/k.cu:20");
  auto init = read_sanitizer_report(
      "========= Uninitialized __global__ memory read of size 4 bytes\n"
      "=========     at scale(float *)+0x40 in /tmp/k.cu:3\n"
      "========= ERROR SUMMARY: 1 error\n");
  EXPECT_EQ(init.outcome, Outcome::found);
}

TEST(SanitizerReport, WithoutASummaryTheReportIsUnreadable) {
  EXPECT_EQ(read_sanitizer_report("").outcome, Outcome::unreadable);
  EXPECT_EQ(read_sanitizer_report("Segmentation fault\n").outcome, Outcome::unreadable);
  EXPECT_EQ(read_sanitizer_report("========= COMPUTE-SANITIZER\n"
                                  "========= Error: process didn't terminate successfully\n")
                .outcome,
            Outcome::unreadable);
}

TEST(SanitizerReport, TheToolsLastSummaryCountsNotOneTheKernelPrinted) {
  // The kernel's process shares the output; the tool prints its summary after that process ends.
  auto r = read_sanitizer_report(
      "========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)\n" +
      fixture("racecheck_race.txt"));
  EXPECT_EQ(r.outcome, Outcome::found);
  // A line without the tool's prefix is not the tool's.
  EXPECT_EQ(read_sanitizer_report("ERROR SUMMARY: 0 errors\n").outcome, Outcome::unreadable);
}

TEST(SanitizerPass, FindingsAreARuntimeErrorNamingThem) {
  auto race = judge_sanitizer_pass("racecheck", fixture("racecheck_race.txt"), std::nullopt);
  ASSERT_TRUE(race.verdict);
  EXPECT_EQ(race.verdict->verdict, Verdict::runtime_error);
  EXPECT_NE(race.verdict->reason.find("compute-sanitizer racecheck found 1 error: Race reported "
                                      "between Write access"),
            std::string::npos)
      << race.verdict->reason;
  // Found errors decide even when the check under the tool also failed.
  auto oob = judge_sanitizer_pass(
      "memcheck", fixture("memcheck_out_of_bounds.txt"),
      Judgement{Verdict::runtime_error, "check set 1: CUDA error: unspecified launch failure"});
  ASSERT_TRUE(oob.verdict);
  EXPECT_EQ(oob.verdict->verdict, Verdict::runtime_error);
  EXPECT_NE(oob.verdict->reason.find("Invalid __global__ write of size 4 bytes"),
            std::string::npos);
}

TEST(SanitizerPass, ACleanKernelPassesEveryTool) {
  for (auto [tool, file] : {std::pair{"racecheck", "racecheck_clean_h200.txt"},
                            std::pair{"memcheck", "memcheck_clean.txt"}}) {
    auto pass = judge_sanitizer_pass(tool, fixture(file), std::nullopt);
    EXPECT_FALSE(pass.verdict) << tool << ": " << pass.verdict->reason;
    EXPECT_EQ(pass.note, "") << tool;
  }
  auto warned = judge_sanitizer_pass("racecheck", fixture("racecheck_warnings.txt"), std::nullopt);
  EXPECT_FALSE(warned.verdict);
  EXPECT_EQ(warned.note, "compute-sanitizer racecheck: 2 possible races (warnings, not errors)");
}

TEST(SanitizerPass, UnreadableOutputIsANoteNeverAVerdict) {
  auto pass = judge_sanitizer_pass("racecheck", "========= COMPUTE-SANITIZER\n", std::nullopt);
  EXPECT_FALSE(pass.verdict);
  EXPECT_NE(pass.note.find("compute-sanitizer racecheck: its output has no summary"),
            std::string::npos)
      << pass.note;
  // Not even when the call under the tool overran or died (the tool's cost, or its failure).
  auto hung = judge_sanitizer_pass(
      "memcheck", "", Judgement{Verdict::timeout, "check set 1: the kernel did not finish"});
  EXPECT_FALSE(hung.verdict);
  EXPECT_NE(hung.note.find("the kernel did not finish"), std::string::npos) << hung.note;
}

TEST(SanitizerPass, UnderACleanToolAWrongResultStandsAndASlowCallIsANote) {
  const Judgement wrong{Verdict::incorrect, "output 'y' is wrong in 3 of 256 elements"};
  auto w = judge_sanitizer_pass("racecheck", fixture("racecheck_clean_h200.txt"), wrong);
  ASSERT_TRUE(w.verdict);
  EXPECT_EQ(w.verdict->verdict, Verdict::incorrect);
  EXPECT_EQ(w.verdict->reason, "under compute-sanitizer racecheck: " + wrong.reason);
  auto slow = judge_sanitizer_pass("memcheck", fixture("memcheck_clean.txt"),
                                   Judgement{Verdict::timeout, "check set 1: did not finish"});
  EXPECT_FALSE(slow.verdict);
  EXPECT_NE(slow.note.find("its summary is clean, but the check under it failed"),
            std::string::npos);
}

}  // namespace
}  // namespace kforge::eval
