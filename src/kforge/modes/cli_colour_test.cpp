// Colour on stdout, as a user meets it: none in a pipe, on a terminal unless NO_COLOR is set,
// always with --color=always (or KFORGE_COLOR=always); a painted table lines up exactly as the
// plain one; verdicts and speedups are what is painted.
#include <gmock/gmock.h>

#include <regex>

#include "kforge/modes/cli_test_util.h"

namespace kforge::modes {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string strip(const std::string& s) {
  return std::regex_replace(s, std::regex("\x1b\\[[0-9;]*m"), "");
}

class CliColour : public CliScenario {
 protected:
  // Two bench results where B is clearly faster on one task and clearly slower on another.
  std::vector<std::string> compare_args() {
    auto task = [](const char* id, double s, double lo, double hi) {
      return nlohmann::json{
          {"task", id},
          {"evaluation",
           {{"task", id}, {"verdict", "correct"}, {"speedup", s}, {"speedup_ci95", {lo, hi}}}}};
    };
    nlohmann::json a = {
        {"tasks", {task("t_faster", 1.0, 0.98, 1.02), task("t_slower_by_far", 2.0, 1.9, 2.1)}}};
    nlohmann::json b = {
        {"tasks", {task("t_faster", 1.5, 1.45, 1.55), task("t_slower_by_far", 1.0, 0.95, 1.05)}}};
    EXPECT_TRUE(core::write_atomic(dir_ / "a.json", a.dump()).ok());
    EXPECT_TRUE(core::write_atomic(dir_ / "b.json", b.dump()).ok());
    // The slower task would fire compare's default --fail-on rule (exit 1); colour is the point.
    return {"compare", (dir_ / "a.json").string(), (dir_ / "b.json").string(), "--fail-on",
            "never"};
  }
  std::vector<std::string> with(std::vector<std::string> args, const std::string& extra) {
    args.push_back(extra);
    return args;
  }
  // `kforge ARGS` on a pseudo-terminal (script(1)), with extra environment; its stdout.
  std::string on_terminal(const std::vector<std::string>& args,
                          const std::vector<std::string>& extra_env) {
    std::string line = kforge();
    for (const auto& a : args) line += " '" + a + "'";
    auto e = env();
    e.insert(e.end(), extra_env.begin(), extra_env.end());
    e.push_back("TERM=xterm");
    auto r = core::run_process({"script", "-qec", line, "/dev/null"},
                               {.timeout = std::chrono::seconds(60), .cwd = dir_, .extra_env = e});
    EXPECT_TRUE(r.success()) << r.describe() << r.out << r.err;
    return r.out;
  }
};

TEST_F(CliColour, NoEscapeCodesInAPipe) {
  auto r = run(compare_args());
  ASSERT_TRUE(r.success()) << r.err;
  EXPECT_THAT(r.out, HasSubstr("B faster"));
  EXPECT_THAT(r.out, Not(HasSubstr("\x1b")));
}

TEST_F(CliColour, ForcedColourPaintsAndTheTableStillAligns) {
  auto plain = run(with(compare_args(), "--color=never"));
  ASSERT_TRUE(plain.success()) << plain.err;
  for (const auto& forced :
       {run(with(compare_args(), "--color=always")), [&] {
          auto e = env();
          e.push_back("KFORGE_COLOR=always");
          auto args = compare_args();
          args.insert(args.begin(), kforge());
          return core::run_process(
              args, {.timeout = std::chrono::seconds(60), .cwd = dir_, .extra_env = e});
        }()}) {
    ASSERT_TRUE(forced.success()) << forced.err;
    EXPECT_THAT(forced.out, HasSubstr("\x1b[32mB faster\x1b[0m"));
    EXPECT_THAT(forced.out, HasSubstr("\x1b[31mB slower\x1b[0m"));
    EXPECT_EQ(strip(forced.out), plain.out);  // same columns, same padding
  }
  auto bad = run(with(compare_args(), "--color=sometimes"));
  EXPECT_EQ(bad.exit_code, 2) << bad.out << bad.err;
}

TEST_F(CliColour, ATerminalGetsColourUnlessNoColor) {
  if (!std::filesystem::exists("/usr/bin/script"))
    GTEST_SKIP() << "no script(1) to make a terminal";
  EXPECT_THAT(on_terminal(compare_args(), {"NO_COLOR="}), HasSubstr("\x1b[32mB faster"));
  EXPECT_THAT(on_terminal(compare_args(), {"NO_COLOR=1"}), Not(HasSubstr("\x1b")));
  EXPECT_THAT(on_terminal(with(compare_args(), "--color=never"), {"NO_COLOR="}),
              Not(HasSubstr("\x1b")));
  EXPECT_THAT(on_terminal(with(compare_args(), "--color=always"), {"NO_COLOR=1"}),
              HasSubstr("\x1b[32m"));  // the flag wins
}

TEST_F(CliColour, EvalSummaryPaintsTheVerdict) {
  std::ofstream(dir_ / "k.cpp") << "#include \"kforge_task.h\"\n#include <cmath>\n" << rms::kFast;
  auto painted =
      run({"eval", "12p_rmsnorm", "k.cpp", "--size", "ci", "--no-time", "--color=always"});
  ASSERT_TRUE(painted.success()) << painted.err;
  EXPECT_THAT(painted.out, HasSubstr("\x1b[32mcorrect\x1b[0m"));
  auto piped = run({"eval", "12p_rmsnorm", "k.cpp", "--size", "ci", "--no-time"});
  ASSERT_TRUE(piped.success()) << piped.err;
  EXPECT_THAT(piped.out, Not(HasSubstr("\x1b")));
}

}  // namespace
}  // namespace kforge::modes
