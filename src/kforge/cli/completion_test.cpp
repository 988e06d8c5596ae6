// Completion is read off the app, not written by hand: every visible command, each command's
// options (with those it inherits) and positionals, what completes each value; hidden ones left
// out. The bash script is valid bash, and completing words with it offers those names.
#include "kforge/cli/completion.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "kforge/cli/cli_test_app.h"
#include "kforge/core/subprocess.h"

namespace kforge::cli {
namespace {

using ::testing::ElementsAre;

const CompletionCommand& command(const std::vector<CompletionCommand>& model,
                                 const std::string& path) {
  for (const auto& c : model) {
    std::string p;
    for (const auto& w : c.path) p += (p.empty() ? "" : " ") + w;
    if (p == path) return c;
  }
  throw std::runtime_error("no command " + path);
}

const CompletionOption& option(const CompletionCommand& c, const std::string& name) {
  for (const auto& o : c.options)
    if (std::find(o.names.begin(), o.names.end(), name) != o.names.end()) return o;
  throw std::runtime_error("no option " + name);
}

TEST(Completion, ModelIsReadOffTheApp) {
  auto app = toy_app();
  const auto model = completion_model(*app);
  EXPECT_THAT(command(model, "kforge").subcommands,
              ElementsAre("eval", "graph", "llm", "export"));  // not the hidden one
  EXPECT_THAT(command(model, "kforge llm").subcommands, ElementsAre("ping", "usage"));
  const auto& eval = command(model, "kforge eval");
  EXPECT_EQ(option(eval, "--size").arg.values, Values::sizes);
  EXPECT_EQ(option(eval, "--threads").arg.values, Values::any);
  EXPECT_EQ(option(eval, "--json").arg.values, Values::none);
  EXPECT_THAT(option(eval, "-q").names, ElementsAre("--quiet", "-q"));  // the root's, inherited
  EXPECT_THAT(option(eval, "--help").names, ElementsAre("--help", "-h"));
  ASSERT_EQ(eval.positionals.size(), 2u);
  EXPECT_EQ(eval.positionals[0].values, Values::tasks);
  EXPECT_EQ(eval.positionals[1].values, Values::files);
  EXPECT_FALSE(eval.last_repeats);
  const auto& format = option(command(model, "kforge graph"), "--format").arg;
  EXPECT_EQ(format.values, Values::choices);
  EXPECT_THAT(format.choices, ElementsAre("dot", "svg", "json"));
  EXPECT_TRUE(command(model, "kforge export").last_repeats);
  EXPECT_THROW(command(model, "kforge secret"), std::runtime_error);
}

// A folder holding one file, k.cpp, for completions of paths; removed at the end.
struct FolderWithAFile {
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("kforge-completion-" + std::to_string(::getpid()));
  FolderWithAFile() {
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "k.cpp") << "\n";
  }
  ~FolderWithAFile() { std::filesystem::remove_all(dir); }
};

// The words bash would offer for `line` (the cursor at its end; a trailing space starts a new
// word), in a folder holding k.cpp.
std::vector<std::string> complete(const std::string& script, const std::string& line) {
  const std::string driver = script + R"(
read -ra COMP_WORDS <<< "$LINE"
[[ $LINE == *' ' ]] && COMP_WORDS+=('')
COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
_kforge
printf '%s\n' "${COMPREPLY[@]}"
)";
  const FolderWithAFile folder;
  auto r =
      core::run_process({"bash", "-c", driver}, {.cwd = folder.dir, .extra_env = {"LINE=" + line}});
  EXPECT_TRUE(r.success()) << r.describe() << r.err;
  std::vector<std::string> words;
  for (std::size_t start = 0, end; (end = r.out.find('\n', start)) != std::string::npos;
       start = end + 1)
    if (end > start) words.push_back(r.out.substr(start, end - start));
  return words;
}

TEST(Completion, BashScriptCompletesCommandsOptionsAndChoices) {
  auto app = toy_app();
  const std::string script = bash_completion(completion_model(*app), "kforge");
  auto syntax = core::run_process({"bash", "-n"}, {.stdin_data = script});
  ASSERT_TRUE(syntax.success()) << syntax.err;
  EXPECT_THAT(complete(script, "kforge ev"), ElementsAre("eval"));
  EXPECT_THAT(complete(script, "kforge e"), ElementsAre("eval", "export"));
  EXPECT_THAT(complete(script, "kforge -q ev"), ElementsAre("eval"));
  EXPECT_THAT(complete(script, "kforge eval --js"), ElementsAre("--json"));
  EXPECT_THAT(complete(script, "kforge eval --no"), ElementsAre("--no-time"));
  EXPECT_THAT(complete(script, "kforge eval --q"), ElementsAre("--quiet"));
  EXPECT_THAT(complete(script, "kforge llm "), ElementsAre("ping", "usage"));
  EXPECT_THAT(complete(script, "kforge llm ping --j"), ElementsAre("--json"));
  EXPECT_THAT(complete(script, "kforge graph 3 --format "), ElementsAre("dot", "svg", "json"));
  EXPECT_THAT(complete(script, "kforge graph 3 --format s"), ElementsAre("svg"));
  EXPECT_THAT(complete(script, "kforge eval t "), ElementsAre("k.cpp"));  // the kernel: a path
  EXPECT_THAT(complete(script, "kforge graph --format json "),
              ElementsAre("k.cpp"));  // json was --format's, not the id
  EXPECT_THAT(complete(script, "kforge graph --format = json "),
              ElementsAre("k.cpp"));  // bash splits --format=json at '='
  EXPECT_THAT(complete(script, "kforge graph 3 --format = s"), ElementsAre("svg"));
  EXPECT_THAT(complete(script, "kforge graph 3 --format ="), ElementsAre("dot", "svg", "json"));
  EXPECT_THAT(complete(script, "kforge graph 3 "), ElementsAre());  // graph takes one id
  EXPECT_THAT(complete(script, "kforge se"), ElementsAre());        // hidden
  EXPECT_THAT(complete(script, "kforge eval --threads "),
              ElementsAre());  // a number: nothing to offer
}

TEST(Completion, ZshAndFishScriptsComeFromTheSameModel) {
  auto app = toy_app();
  const auto model = completion_model(*app);
  const std::string zsh = zsh_completion(model, "kforge"), fish = fish_completion(model, "kforge");
  EXPECT_NE(zsh.find("bashcompinit"), std::string::npos);
  EXPECT_NE(
      zsh.find(
          "_kforge_options[kforge/eval]='--help -h --size --threads --json --no-time --quiet -q'"),
      std::string::npos)
      << zsh;
  EXPECT_NE(fish.find("complete -c kforge -n 'test (__kforge_command) = kforge' -a eval -d "
                      "'Evaluate a kernel'"),
            std::string::npos)
      << fish;
  EXPECT_NE(fish.find("complete -c kforge -n 'test (__kforge_command) = kforge/graph' -l format -x "
                      "-a 'dot svg json' -d 'Format'"),
            std::string::npos)
      << fish;
  EXPECT_NE(fish.find("case kforge/eval kforge/graph kforge/llm kforge/export kforge/llm/ping "
                      "kforge/llm/usage"),
            std::string::npos)
      << fish;
}

}  // namespace
}  // namespace kforge::cli
