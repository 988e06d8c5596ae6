// A mistyped command or option is named with the closest real one, the candidates read off the
// app (its commands, the options of the command reached and of those above it); a parse error
// of another kind is left to CLI11.
#include "kforge/cli/suggestions.h"

#include <gtest/gtest.h>

#include "kforge/cli/cli_test_app.h"

namespace kforge::cli {
namespace {

// What kforge says about `line`, "(parsed)" when it parses.
std::string explain(const std::string& line) {
  auto app = toy_app();
  try {
    app->parse(line);
  } catch (const CLI::ParseError&) {
    return explain_unknown_word(*app).value_or("(CLI11's message)");
  }
  return "(parsed)";
}

TEST(Suggestions, UnknownCommands) {
  EXPECT_EQ(explain("evl"), "kforge: unknown command 'evl' (did you mean 'eval'?)");
  EXPECT_EQ(explain("grpah 3"), "kforge: unknown command 'grpah' (did you mean 'graph'?)");
  EXPECT_EQ(explain("llm pnig"), "kforge llm: unknown command 'pnig' (did you mean 'ping'?)");
  EXPECT_EQ(explain("frobnicate"), "kforge: unknown command 'frobnicate' (see `kforge --help`)");
  EXPECT_EQ(explain("secre"),
            "kforge: unknown command 'secre' (see `kforge --help`)");  // hidden: never suggested
}

TEST(Suggestions, UnknownOptions) {
  EXPECT_EQ(explain("eval t k --jsn"),
            "kforge eval: unknown option '--jsn' (did you mean '--json'?)");
  EXPECT_EQ(explain("eval --jsn t k"),
            "kforge eval: unknown option '--jsn' (did you mean '--json'?)");
  EXPECT_EQ(explain("eval t k --sise=ci"),
            "kforge eval: unknown option '--sise' (did you mean '--size'?)");
  EXPECT_EQ(explain("eval t k -json"),
            "kforge eval: unknown option '-json' (did you mean '--json'?)");
  EXPECT_EQ(
      explain("eval t k --quite"),
      "kforge eval: unknown option '--quite' (did you mean '--quiet'?)");  // the root's, inherited
  EXPECT_EQ(explain("llm ping --jsno"),
            "kforge llm ping: unknown option '--jsno' (did you mean '--json'?)");
  EXPECT_EQ(explain("graph 3 --zzzzzz"),
            "kforge graph: unknown option '--zzzzzz' (see `kforge graph --help`)");
  // A missing argument hides behind no unknown option: `kforge eval --jsn x` is about --jsn.
  EXPECT_EQ(explain("eval --jsn x"),
            "kforge eval: unknown option '--jsn' (did you mean '--json'?)");
}

TEST(Suggestions, OtherErrorsAreCli11s) {
  EXPECT_EQ(explain("eval t k"), "(parsed)");
  EXPECT_EQ(explain(""), "(CLI11's message)");                // no command at all
  EXPECT_EQ(explain("eval t"), "(CLI11's message)");          // a missing argument
  EXPECT_EQ(explain("eval t k extra"), "(CLI11's message)");  // an extra one
  EXPECT_EQ(explain("graph 3 --format png"), "(CLI11's message)");
}

TEST(Suggestions, CommandPath) {
  auto app = toy_app();
  EXPECT_EQ(command_path(*app), "kforge");
  EXPECT_EQ(command_path(*app->get_subcommand("llm")->get_subcommand("ping")), "kforge llm ping");
}

}  // namespace
}  // namespace kforge::cli
