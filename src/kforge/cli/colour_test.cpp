// When kforge paints: --color / KFORGE_COLOR always or never decides; otherwise NO_COLOR (any
// non-empty value) turns colour off, and only a terminal gets it. What it paints: verdicts by
// outcome, ratios by which side of 1.00x they print.
#include "kforge/cli/colour.h"

#include <gtest/gtest.h>
#include <stdlib.h>

namespace kforge::cli {
namespace {

TEST(Colour, WhenToPaint) {
  EXPECT_TRUE(colour_wanted("", "", true));
  EXPECT_TRUE(colour_wanted("auto", "", true));
  EXPECT_FALSE(colour_wanted("auto", "", false));  // a pipe or a file
  EXPECT_FALSE(colour_wanted("", "1", true));      // NO_COLOR, any non-empty value
  EXPECT_FALSE(colour_wanted("", "0", true));
  EXPECT_TRUE(colour_wanted("always", "1", false));  // forced, even into a pipe
  EXPECT_FALSE(colour_wanted("never", "", true));
}

class Painting : public ::testing::Test {
 protected:
  void SetUp() override { setenv("KFORGE_COLOR", "always", 1); }
  void TearDown() override { unsetenv("KFORGE_COLOR"); }
};

TEST_F(Painting, VerdictsByOutcome) {
  EXPECT_EQ(paint_verdict("correct"), "\x1b[32mcorrect\x1b[0m");
  for (const char* bad : {"incorrect", "compile_error", "runtime_error", "error: no task.toml"})
    EXPECT_EQ(paint_verdict(bad), std::string("\x1b[31m") + bad + "\x1b[0m") << bad;
  for (const char* odd : {"timeout", "sandbox_violation", "input_modified", "link_refused"})
    EXPECT_EQ(paint_verdict(odd), std::string("\x1b[33m") + odd + "\x1b[0m") << odd;
  EXPECT_EQ(paint_verdict("—"), "—");
  EXPECT_EQ(paint_verdict("skipped: no expert.cpp"), "skipped: no expert.cpp");
}

TEST_F(Painting, RatiosBySideOfOne) {
  EXPECT_EQ(paint_ratio(1.52), "\x1b[32m1.52x\x1b[0m");
  EXPECT_EQ(paint_ratio(0.5), "\x1b[31m0.50x\x1b[0m");
  EXPECT_EQ(paint_ratio(0.999), "1.00x");  // prints as 1.00x: neither
}

TEST_F(Painting, NeverMeansPlain) {
  setenv("KFORGE_COLOR", "never", 1);
  EXPECT_EQ(paint_verdict("correct"), "correct");
  EXPECT_EQ(paint_ratio(2.0), "2.00x");
}

}  // namespace
}  // namespace kforge::cli
