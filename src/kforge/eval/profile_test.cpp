// The profile's text: each hot line carries its sample count and the 95% interval of its share,
// so a share drawn from ~60 samples reads as the rough figure it is; when one line holds most of
// the kernel's samples its hottest instructions follow (and a disassembler that fails is a note),
// in the text the profiler reads and in the JSON, end to end from a real profiled evaluation.
#include "kforge/eval/profile.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kforge/eval/ci_task_fixture.h"
#include "kforge/eval/evaluate.h"
#include "kforge/eval/evaluation_json.h"

namespace kforge::eval {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(Profile, ShareIntervalIsWilson) {
  auto [low, high] = share_interval(19, 61);
  EXPECT_NEAR(low, 0.209, 0.005);
  EXPECT_NEAR(high, 0.435, 0.005);
  auto [none_low, none_high] = share_interval(0, 50);
  EXPECT_EQ(none_low, 0);
  EXPECT_GT(none_high, 0.05);  // no samples is not proof of no time
  EXPECT_EQ(share_interval(3, 0), std::make_pair(0.0, 0.0));
}

TEST(Profile, HotLinesCarryTheirSamplesAndInterval) {
  Profile p;
  p.samples = 61;
  p.calls = 12;
  p.object_share = {{"kernel", 0.9}, {"libgomp.so.1", 0.1}};
  p.hot_lines = {{12, 19, 19.0 / 61, "kernel", "    acc += x[i] * x[i];"},
                 {0, 4, 4.0 / 61, "(outside the kernel's source: inlined library code)", ""}};
  std::string s = p.summary();
  EXPECT_THAT(s, HasSubstr("share of all 61 with its 95% interval"));
  EXPECT_THAT(s, HasSubstr("   19   31.1% [21–44%]  line   12: acc += x[i] * x[i];"));
  EXPECT_THAT(s, HasSubstr("    4    6.6% ["));
}

namespace {

// Hot lines whose hottest holds `top` of 100 kernel samples (the rest on line 20).
Profile profile_with_top_line(long top) {
  Profile p;
  p.samples = 120;
  p.hot_lines = {{12, top, top / 120.0, "kernel", "  MICRO_KERNEL(8, 4);"},
                 {20, 100 - top, (100 - top) / 120.0, "kernel", "  c[i] = acc;"}};
  return p;
}

}  // namespace

// Only a line holding half the kernel's samples or more gets its instructions: otherwise the
// hot lines say enough and the request stays lean. A tool that cannot run is proof either way:
// it leaves a note only when it was tried.
TEST(Profile, HotInstructionsOnlyPastADominantLine) {
  const auto offsets = nlohmann::json::array({{0x1100u, 5}});
  const DisassemblerOptions absent{.tools = {"kforge-no-such-objdump"}};
  Profile spread = profile_with_top_line(45);
  add_hot_instructions(spread, offsets, "/nonexistent.so", absent);
  EXPECT_TRUE(spread.hot_instructions.empty());
  EXPECT_TRUE(to_json(spread)["hot_instructions"].is_null());

  Profile dominant = profile_with_top_line(78);
  add_hot_instructions(dominant, offsets, "/nonexistent.so", absent);
  EXPECT_EQ(dominant.hot_instructions.why, "line 12 holds 78% of the kernel's samples");
  // A missing disassembler is a note on the profile the profiler reads, not an error.
  EXPECT_THAT(dominant.samples_text(),
              HasSubstr("  (hot instructions not shown: no disassembler on PATH (tried "
                        "kforge-no-such-objdump))\n"));
  EXPECT_THAT(to_json(dominant)["hot_instructions"]["note"].get<std::string>(),
              HasSubstr("no disassembler on PATH"));
}

// A candidate of 8p_gemm profiled for real at the ci size: its inner loop is one source line, so
// the profile names the instruction the runner's samples fell on most, in the text the profiler
// reads, in the JSON of `kforge eval --profile --json`, and after a round trip through it.
class ProfileEndToEndTest : public CiTaskTest {
 protected:
  static void SetUpTestSuite() { open_task("profile", "8p_gemm"); }
  static void TearDownTestSuite() { close_task(); }
};

TEST_F(ProfileEndToEndTest, DominantLineOfARealKernelGetsItsHotInstructions) {
  EvalOptions o;
  o.time_budget_s = 0.2;
  o.profile_seconds = 0.5;
  o.threads = 1;
  auto e = evaluate(*ctx_, kNaiveGemm, "gemm.cpp", o);
  ASSERT_EQ(e.verdict, Verdict::correct) << e.reason;
  ASSERT_TRUE(e.profile);
  const Profile& p = *e.profile;
  ASSERT_FALSE(p.hot_lines.empty());
  EXPECT_EQ(p.hot_lines.front().line, 8) << p.samples_text();  // c[i * N + j] += a · b
  const HotInstructions& h = p.hot_instructions;
  ASSERT_FALSE(h.top.empty()) << p.samples_text();
  EXPECT_EQ(h.tool, "objdump");
  EXPECT_THAT(h.why, HasSubstr("line 8 holds"));
  // Every sample in the kernel's object lies on an instruction objdump printed: the runner's
  // offsets and the disassembly's addresses are the same numbers.
  EXPECT_EQ(h.attributed, h.kernel_samples);
  EXPECT_TRUE(h.note.empty()) << h.note;
  long in_top = 0;
  for (const auto& t : h.top) in_top += t.samples;
  EXPECT_LE(in_top, h.kernel_samples);
  EXPECT_NEAR(h.top.front().share,
              static_cast<double>(h.top.front().samples) / static_cast<double>(p.samples), 1e-12);
  const std::string text = p.samples_text();
  EXPECT_THAT(text, HasSubstr("hot instructions (line 8 holds"));
  EXPECT_THAT(text, HasSubstr(h.top.front().text.substr(0, 40)));
  EXPECT_LE(h.text().size(), 1536u);

  auto j = to_json(e);
  ASSERT_TRUE(j["profile"]["hot_instructions"].is_object());
  EXPECT_EQ(j["profile"]["hot_instructions"]["top"][0]["instruction"], h.top.front().text);
  auto back = evaluation_from_json(j);
  ASSERT_TRUE(back.profile);
  EXPECT_EQ(back.profile->samples_text(), text);
}

}  // namespace kforge::eval
