// Shell completion for the kforge binary itself: `kforge completion bash` is valid bash, and
// driving it as bash does on TAB (COMP_WORDS, COMP_CWORD, then the function) offers the commands,
// each command's options, the suite's task ids and size names, and an option's choices. zsh and
// fish scripts are checked for syntax where those shells are installed.
#include <gmock/gmock.h>

#include "kforge/modes/cli_test_util.h"

namespace kforge::modes {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::IsSupersetOf;
using ::testing::Not;

class CliCompletion : public CliScenario {
 protected:
  std::string script(const std::string& shell) {
    auto r = run({"completion", shell});
    EXPECT_TRUE(r.success()) << r.err;
    return r.out;
  }
  // What bash offers for `words` typed after the kforge binary (a trailing "" completes a new
  // word).
  std::vector<std::string> complete(const std::vector<std::string>& words) {
    std::string driver = script("bash") + "\nCOMP_WORDS=('" + kforge() + "'";
    for (const auto& w : words) driver += " '" + w + "'";
    driver += ")\nCOMP_CWORD=" + std::to_string(words.size()) +
              "\n_kforge\nprintf '%s\\n' \"${COMPREPLY[@]}\"\n";
    auto r =
        core::run_process({"bash", "-c", driver},
                          {.timeout = std::chrono::seconds(60), .cwd = dir_, .extra_env = env()});
    EXPECT_TRUE(r.success()) << r.describe() << r.err;
    std::vector<std::string> out;
    for (std::size_t start = 0, end; (end = r.out.find('\n', start)) != std::string::npos;
         start = end + 1)
      if (end > start) out.push_back(r.out.substr(start, end - start));
    return out;
  }
};

TEST_F(CliCompletion, BashScriptIsValidBash) {
  auto r = core::run_process({"bash", "-n"}, {.stdin_data = script("bash")});
  EXPECT_TRUE(r.success()) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir_ / "state")) << "printing a script wrote state";
}

TEST_F(CliCompletion, BashCompletesCommandsAndOptions) {
  EXPECT_THAT(complete({"ev"}), ElementsAre("eval"));
  EXPECT_THAT(complete({"eval", "--js"}), ElementsAre("--json"));
  EXPECT_THAT(complete({"llm", "p"}), ElementsAre("ping"));
  EXPECT_THAT(complete({"llm", "ping", "--ti"}), ElementsAre("--timeout"));
  EXPECT_THAT(complete({"--color", ""}), ElementsAre("auto", "always", "never"));
  EXPECT_THAT(complete({"graph", "r1", "--format", ""}), ElementsAre("dot", "svg", "json"));
  EXPECT_THAT(complete({"completion", ""}), ElementsAre("bash", "zsh", "fish"));
  EXPECT_THAT(complete({""}), IsSupersetOf({"list", "show", "eval", "bench", "completion"}));
  EXPECT_THAT(complete({"completion", "--"}), Not(Contains("--candidates")));  // hidden
}

TEST_F(CliCompletion, BashCompletesTaskIdsAndSizes) {
  EXPECT_THAT(complete({"show", "12p_rms"}), ElementsAre("12p_rmsnorm"));
  EXPECT_THAT(complete({"eval", "8p"}), ElementsAre("8p_gemm"));
  EXPECT_THAT(complete({"eval", "12p_rmsnorm", "k.cpp", "--size", ""}),
              ElementsAre("ci", "cpu", "full"));
  EXPECT_THAT(complete({"bench", "--size", "c"}), ElementsAre("ci", "cpu"));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "state")) << "completing wrote state";
}

TEST_F(CliCompletion, CompletionNeedsAKnownShell) {
  EXPECT_EQ(run({"completion"}).exit_code, 2);
  EXPECT_EQ(run({"completion", "powershell"}).exit_code, 2);
}

TEST_F(CliCompletion, ZshAndFishScriptsParseWhereThoseShellsExist) {
  bool checked = false;
  for (const auto& [shell, args] :
       {std::pair<std::string, std::vector<std::string>>{"zsh", {"zsh", "-n"}},
        {"fish", {"fish", "--no-execute"}}}) {
    const std::string text = script(shell);
    EXPECT_THAT(text, ::testing::HasSubstr("eval"));
    if (core::run_process({"sh", "-c", "command -v " + shell}).success()) {
      auto r = core::run_process(args, {.stdin_data = text});
      EXPECT_TRUE(r.success()) << shell << ": " << r.err;
      checked = true;
    }
  }
  if (!checked)
    GTEST_SKIP()
        << "neither zsh nor fish is installed: their scripts are generated but not checked";
}

}  // namespace
}  // namespace kforge::modes
