// Reading Nsight Compute's CSV (tests/ncu: a fixture in ncu's details layout, and its answer when
// the counters are restricted): launches grouped by ID, metrics by section with their units,
// thousands separators and n/a, the header found after ncu's own lines, the profiler's text, and
// the JSON round trip that carries counters in evaluation.json.
#include "kforge/eval/ncu_report.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "kforge/core/fs.h"
#include "kforge/core/paths.h"

namespace kforge::eval {
namespace {

using ::testing::HasSubstr;

std::string fixture(const char* name) {
  auto text = core::read_text(core::source_dir() / "tests" / "ncu" / name);
  EXPECT_TRUE(text) << text.error().message;
  return text ? *text : "";
}

}  // namespace

TEST(NcuReport, ReadsLaunchesAndMetricsFromTheDetailsCsv) {
  auto kernels = parse_ncu_csv(fixture("details_format.csv"));
  ASSERT_TRUE(kernels) << kernels.error().message;
  ASSERT_EQ(kernels->size(), 2u);
  const auto& k = kernels->front();
  EXPECT_EQ(k.name, "(anonymous namespace)::rmsnorm(const float4 *, const float4 *, float4 *)");
  EXPECT_EQ(k.block, "(256, 1, 1)");
  EXPECT_EQ(k.grid, "(32768, 1, 1)");
  ASSERT_EQ(k.metrics.size(), 10u);
  const auto* dram = k.find("Memory Throughput");
  ASSERT_NE(dram, nullptr);
  EXPECT_EQ(dram->section, "GPU Speed Of Light Throughput");
  EXPECT_EQ(dram->unit, "%");
  EXPECT_DOUBLE_EQ(*dram->number, 88.41);
  EXPECT_DOUBLE_EQ(*k.find("Threads")->number, 8388608);   // "8,388,608"
  EXPECT_FALSE(k.find("Block Limit Shared Mem")->number);  // "n/a"
  EXPECT_EQ(kernels->back().metrics.size(), 2u);
}

TEST(NcuReport, SaysWhyWhenNcuCouldNotReadTheCounters) {
  auto kernels = parse_ncu_csv(fixture("permission_denied.log"));
  ASSERT_FALSE(kernels);
  EXPECT_THAT(kernels.error().message, HasSubstr("ERR_NVGPUCTRPERM"));
  auto none = parse_ncu_csv("Segmentation fault\n");
  ASSERT_FALSE(none);
  EXPECT_THAT(none.error().message, HasSubstr("no CSV header"));
}

TEST(NcuReport, ARowShorterThanTheHeaderIsAnErrorWithItsLine) {
  auto kernels = parse_ncu_csv(
      "\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n\"0\",\"k\"\n");
  ASSERT_FALSE(kernels);
  EXPECT_THAT(kernels.error().message, HasSubstr("line 2 has 2 fields where the header has 5"));
}

TEST(NcuReport, TheProfilerGetsEachSectionOnALine) {
  auto kernels = parse_ncu_csv(fixture("details_format.csv"));
  ASSERT_TRUE(kernels);
  const std::string text = format_ncu(*kernels, 1);
  EXPECT_THAT(text, HasSubstr("rmsnorm(const float4 *, const float4 *, float4 *) (grid "
                              "(32768, 1, 1), block (256, 1, 1))\n"));
  EXPECT_THAT(text, HasSubstr("  GPU Speed Of Light Throughput: DRAM Frequency 2.62 Ghz; "
                              "Duration 412.35 usecond; Memory Throughput 88.41 %;"));
  EXPECT_THAT(text, HasSubstr("  Occupancy: Theoretical Occupancy 100 %; Achieved Occupancy 87.9"));
  EXPECT_THAT(text, HasSubstr("(1 more launches not shown)"));
}

TEST(NcuReport, CountersSurviveTheJsonRoundTrip) {
  auto kernels = parse_ncu_csv(fixture("details_format.csv"));
  ASSERT_TRUE(kernels);
  nlohmann::json j = *kernels;
  auto back = j.get<std::vector<NcuKernel>>();
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].name, (*kernels)[0].name);
  EXPECT_DOUBLE_EQ(*back[0].find("Threads")->number, 8388608);
}

}  // namespace kforge::eval
