// What `kforge auto` and `kforge search` print last (12p_rmsnorm, ci size, the scripted model):
// the table, the best kernel's speedup over the partner aimed at, and where report.md is. The
// best kernel is timed against the peers only when asked (--report-peers): by default nothing of
// the kind runs, and the closing lines say how to ask for it.
#include <gmock/gmock.h>

#include <gtest/gtest.h>
#include <regex>

#include "kforge/core/fs.h"
#include "kforge/modes/cli_test_util.h"

namespace kforge::modes {
namespace {

using ::testing::AnyOf;
using ::testing::HasSubstr;
using ::testing::Not;

// The path a closing line "label: PATH" names.
std::filesystem::path named_path(const std::string& out, const std::string& label) {
  auto at = out.find(label);
  if (at == std::string::npos) return {};
  at += label.size();
  return out.substr(at, out.find('\n', at) - at);
}

class ClosingLinesTest : public CliScenario {
 protected:
  // As run(), but with KFORGE_REPORT_PEERS unset: the default is what is tested.
  core::ProcessResult run_default(std::vector<std::string> args) {
    args.insert(args.begin(), kforge());
    auto vars = env();
    std::erase_if(vars, [](const std::string& v) { return v.starts_with("KFORGE_REPORT_PEERS="); });
    return core::run_process(
        args, {.timeout = std::chrono::seconds(600), .cwd = dir_, .extra_env = vars});
  }
};

}  // namespace

TEST_F(ClosingLinesTest, AutoEndsWithTheSpeedupAndTheReportAndTimesNoPeerUnlessAsked) {
  script({{"planner", {rms::plan("PLAN-FAST")}},
          {"coder", {rms::block(rms::kFast)}},
          {"profiler", {rms::kProfiled}}});
  auto r = run_default({"auto", "12p_rmsnorm", "--size", "ci", "--model", model(), "--iterations",
                        "1", "--tune-budget", "0", "--budget", "0.2"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("iter  verdict"));
  // The speedup is over the partner aimed at (--beat: libtorch here, no peer being recorded), or
  // said to be no figure when the machine was busy.
  EXPECT_THAT(r.out, HasSubstr("over PyTorch eager, libtorch, the partner it aimed at"));
  // A figure says it is one run's and how to get the spread between runs.
  EXPECT_THAT(r.out, AnyOf(HasSubstr("`kforge eval --runs 3` gives the spread between runs"),
                           HasSubstr("(timed on a busy machine)")));
  const auto report = named_path(r.out, "report: ");
  EXPECT_EQ(report.filename(), "report.md") << r.out;
  EXPECT_TRUE(std::filesystem::exists(report)) << r.out;
  EXPECT_THAT(r.out, HasSubstr("peers: not timed (--report-peers all"));
  // No peer was timed: no progress line for one, no section for them in the report.
  EXPECT_THAT(r.err, Not(HasSubstr("the best kernel against")));
  auto text = core::read_text(report);
  ASSERT_TRUE(text.ok());
  EXPECT_THAT(*text, Not(HasSubstr("against every peer")));
}

TEST_F(ClosingLinesTest, SearchEndsWithTheSpeedupAndItsReport) {
  // One strategy, the fast kernel's: the search has a best to close with.
  ASSERT_TRUE(core::write_atomic(dir_ / "strategies.toml",
                                 "replace = true\n[[strategy]]\nid = \"go_fast\"\nfamily = "
                                 "\"compute\"\ntext = \"STRATEGY-FAST: vectorize.\"\n")
                  .ok());
  script(rms::three_strategy_script());
  auto r = run_default(
      {"search",        "12p_rmsnorm", "--size",           "ci",
       "--model",       model(),       "--strategies",     (dir_ / "strategies.toml").string(),
       "--algorithm",   "parallel",    "--width",          "1",
       "--jobs",        "1",           "--budget",         "0.2",
       "--tune-budget", "0",           "--debug-attempts", "0",
       "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("node  parent"));
  EXPECT_THAT(r.out, HasSubstr("over PyTorch eager, libtorch, the partner it aimed at"));
  // Two times that cannot disagree: the search's own, and the whole command's around it.
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.out, m,
                                std::regex(R"(; (\d+) s searching, .*; (\d+) s in all with the )")))
      << r.out;
  EXPECT_LE(std::stoi(m[1]), std::stoi(m[2]));
  const auto report = named_path(r.out, "report: ");
  EXPECT_EQ(report.filename(), "report.md") << r.out;
  auto text = core::read_text(report);
  ASSERT_TRUE(text.ok()) << r.out;
  EXPECT_THAT(*text, HasSubstr("Every kernel paired with PyTorch eager, libtorch"));
  EXPECT_THAT(*text, HasSubstr("| node | parent |"));
  EXPECT_THAT(*text, HasSubstr("## Best kernel (node"));
}

}  // namespace kforge::modes
