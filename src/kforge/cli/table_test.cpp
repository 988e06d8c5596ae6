// Tables align by what a terminal shows: a painted cell's escape codes take no columns, so a
// coloured table lines up exactly as the same table without colour.
#include "kforge/cli/table.h"

#include <gtest/gtest.h>

#include <regex>

namespace kforge::cli {
namespace {

std::string green(const std::string& s) { return "\x1b[32m" + s + "\x1b[0m"; }
std::string strip(const std::string& s) {
  return std::regex_replace(s, std::regex("\x1b\\[[0-9;]*m"), "");
}

TEST(Table, CountOfSaysOneTaskNotOneTasks) {
  EXPECT_EQ(count_of(1, "task"), "1 task");
  EXPECT_EQ(count_of(0, "task"), "0 tasks");
  EXPECT_EQ(count_of(50, "task"), "50 tasks");
}

TEST(Table, DisplayWidthSkipsEscapeCodes) {
  EXPECT_EQ(display_width("correct"), 7u);
  EXPECT_EQ(display_width(green("correct")), 7u);
  EXPECT_EQ(display_width("\x1b[1;31m1.50x\x1b[0m"), 5u);
  EXPECT_EQ(display_width("p10–p90 …"), 9u);  // UTF-8 still counts by character
}

TEST(Table, PaintedCellsAlignLikePlainOnes) {
  Table plain({"task", "verdict", "speedup"}, {false, false, true});
  Table painted({"task", "verdict", "speedup"}, {false, false, true});
  plain.add({"12p_rmsnorm", "correct", "1.52x"});
  painted.add({"12p_rmsnorm", green("correct"), green("1.52x")});
  plain.add({"8p_gemm", "compile_error", "0.50x"});
  painted.add({"8p_gemm", "\x1b[31mcompile_error\x1b[0m", "\x1b[31m0.50x\x1b[0m"});
  const std::string out = painted.render();
  EXPECT_NE(out.find("\x1b[32mcorrect\x1b[0m"), std::string::npos);
  EXPECT_EQ(strip(out), plain.render());
}

TEST(Table, KeyValuesIgnoreEscapeCodesInKeys) {
  EXPECT_EQ(strip(key_values({{green("verdict"), "x"}, {"reason", "y"}})),
            key_values({{"verdict", "x"}, {"reason", "y"}}));
}

}  // namespace
}  // namespace kforge::cli
