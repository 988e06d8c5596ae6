// The guard lint on small sources: what it flags, and the two ways a line passes (a probe, or a
// comment that says why there is no guard to probe).
#include "guard_lint.h"

#include <gtest/gtest.h>

namespace kforge::suite {
namespace {

std::vector<int> flagged(std::string_view src) {
  std::vector<int> lines;
  for (const auto& f : lint_guards(src)) lines.push_back(f.line);
  return lines;
}

TEST(GuardLint, FlagsClampsSelectsBranchesMasksAndDataLoopBounds) {
  EXPECT_EQ(flagged("h = std::clamp(h, -2.0, 2.0);\n"), (std::vector<int>{1}));
  EXPECT_EQ(flagged("y = std::max(v, 0.0);\n"), (std::vector<int>{1}));
  EXPECT_EQ(flagged("n = std::min<std::int64_t>(NS, num[0]);\n"), (std::vector<int>{1}));
  EXPECT_EQ(flagged("m = *std::max_element(a, a + n);\n"), (std::vector<int>{1}));
  EXPECT_EQ(flagged("y = fmaxf(v, 0.f);\n"), (std::vector<int>{1}));
  EXPECT_EQ(flagged("y = v >= 0 ? v : v * s;\n"), (std::vector<int>{1}));
  EXPECT_EQ(flagged("if (v < 0) v = 0;\n"), (std::vector<int>{1}));
  EXPECT_EQ(flagged("a = x * mask[i];\n"), (std::vector<int>{1}));
  EXPECT_EQ(flagged("for (int j = 0; j <= i; ++j) s += p[j];\n"), (std::vector<int>{1}));
  EXPECT_EQ(flagged("for (int t = 0; t < len; ++t) s += p[t];\n"), (std::vector<int>{1}));
  EXPECT_EQ(flagged("for (int r = 0; r < sizes[g]; ++r) rows++;\n"), (std::vector<int>{1}));
}

TEST(GuardLint, LeavesPlainCodeCommentsAndStringsAlone) {
  EXPECT_TRUE(flagged("#include <algorithm>\n"
                      "// std::max(a, b) and the causal mask, in a comment\n"
                      "/* if (x) ? */\n"
                      "const char* s = \"max(1, 2) ? mask\";\n"
                      "for (std::int64_t i = 0; i < N; ++i) y[i] = x[i] * 2;\n"
                      "for (std::int64_t j = g * GS; j < (g + 1) * GS; ++j) s += h[j];\n"
                      "for (double v : acc) s += v;\n")
                  .empty());
}

TEST(GuardLint, ConstexprNamesAreNotVariableBounds) {
  EXPECT_TRUE(flagged("constexpr std::int64_t OH = H - 2, plane = OH * OW;\n"
                      "for (std::int64_t p = 0; p < plane; ++p) y[p] = 0;\n")
                  .empty());
}

TEST(GuardLint, AProbeOrAReasonPassesTheLine) {
  EXPECT_TRUE(flagged("h = KFORGE_CLAMP(\"hardtanh\", h, -2.0, 2.0);\n"
                      "y = KFORGE_GUARD(\"relu\", v < 0) ? 0.0 : v;\n"
                      "mx = std::max(mx, p[j]);  // not a guard: the softmax's shift cancels\n"
                      "// never fires: tanh keeps t + 3 inside [2, 4]\n"
                      "r = std::clamp(t + 3.0, 0.0, 6.0);\n")
                  .empty());
}

TEST(GuardLint, AReasonCoversOnlyTheLineBelowIt) {
  EXPECT_EQ(flagged("// not a guard: the softmax's shift cancels\n"
                    "mx = std::max(mx, p[j]);\n"
                    "y = std::max(v, 0.0);\n"),
            (std::vector<int>{3}));
  EXPECT_EQ(flagged("// not a guard: the softmax's shift cancels\n"
                    "\n"
                    "mx = std::max(mx, p[j]);\n"),
            (std::vector<int>{3}));
}

TEST(GuardLint, BoundsSetOnAProbedOrExplainedLineAreNotVariables) {
  EXPECT_TRUE(
      flagged(
          "const std::int64_t keys = KFORGE_GUARD(\"causal_mask\", i + 1 < S) ? i + 1 : S;\n"
          "for (std::int64_t j = 0; j < keys; ++j) s += p[j];\n"
          "const std::int64_t tail = std::min(TB, T - t0);  // not a guard: the last block's size\n"
          "for (std::int64_t t = 0; t < tail; ++t) s += p[t];\n")
          .empty());
  // Set anywhere else, the bound is data: a length mask the lint must ask about.
  EXPECT_EQ(flagged("const std::int64_t len = kv_lens[n];\n"
                    "for (std::int64_t t = 0; t < len; ++t) s += p[t];\n"),
            (std::vector<int>{2}));
}

TEST(GuardLint, FindingsSayWhy) {
  auto f = lint_guards("int a = 0;\ny = std::max(v, 0.0);\n");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].line, 2);
  EXPECT_EQ(f[0].code, "y = std::max(v, 0.0);");
  EXPECT_NE(f[0].why.find("max"), std::string::npos);
}

}  // namespace
}  // namespace kforge::suite
