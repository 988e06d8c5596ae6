// Every option is declared once (option_registry.cpp) and every command takes it from there: no
// (command, name) pair twice, no declaration a command does not bind, no binding the registry does
// not hold; a check or an environment variable declared once applies to every command that takes
// the option.
#include "kforge/cli/option_registry.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <functional>
#include <set>
#include <vector>

#include "kforge/cli/app.h"
#include "kforge/cli/completion.h"

namespace kforge::cli {
namespace {

using ::testing::HasSubstr;

// CLI11 keeps a command's callbacks protected; a pointer to member taken in a derived class reads
// them from any App.
struct Callbacks : CLI::App {
  static std::function<void()>& final_of(CLI::App& a) { return a.*(&Callbacks::final_callback_); }
  static std::function<void()>& parse_complete_of(CLI::App& a) {
    return a.*(&Callbacks::parse_complete_callback_);
  }
};

// The real app, with nothing run: parsing a line only fills the options. The callbacks are kept,
// not dropped: a command's callback owns the storage its options write to (a shared_ptr it
// captures), so dropping it left the options writing into freed memory (ASan saw it).
struct QuietApp : KforgeApp {
  std::vector<std::function<void()>> kept;
};

QuietApp quiet_app() {
  QuietApp k{make_app(), {}};
  auto silence = [&](CLI::App& a) {
    for (auto* f : {&Callbacks::final_of(a), &Callbacks::parse_complete_of(a)}) {
      k.kept.push_back(std::move(*f));
      *f = nullptr;
    }
  };
  silence(*k.app);
  for (auto* sub : k.app->get_subcommands([](CLI::App*) { return true; })) {
    silence(*sub);
    for (auto* inner : sub->get_subcommands([](CLI::App*) { return true; })) silence(*inner);
  }
  return k;
}

void parse(CLI::App& app, std::vector<std::string> words) {
  std::reverse(words.begin(), words.end());  // CLI11 takes them last first
  app.parse(words);
}

TEST(OptionRegistry, NoOptionIsDeclaredTwiceForOneCommand) {
  EXPECT_THAT(registry_conflicts(option_registry()), ::testing::IsEmpty());
  // The check itself: a second --size for eval, and a command option that hides the root's.
  auto doubled = option_registry();
  doubled.push_back({"size2", "--size", "Another size", {"eval"}});
  doubled.push_back({"mute", "-q", "Shadows --quiet", {"bench"}});
  auto conflicts = registry_conflicts(doubled);
  ASSERT_EQ(conflicts.size(), 2u);
  EXPECT_THAT(conflicts[0], HasSubstr("eval: --size declared by 'size' and 'size2'"));
  EXPECT_THAT(conflicts[1], HasSubstr("bench: -q declared by 'mute' hides the root's 'quiet'"));
}

TEST(OptionRegistry, EveryDeclarationIsBoundByEachCommandItNames) {
  auto k = make_app();
  std::set<std::pair<std::string, std::string>> declared,
      bound(k.state->bound.begin(), k.state->bound.end());
  for (const auto& s : option_registry())
    for (const auto& command : s.commands) declared.emplace(command, s.key);
  std::vector<std::string> missing, extra;
  for (const auto& [command, key] : declared)
    if (!bound.count({command, key})) missing.push_back(command + ": " + key);
  for (const auto& [command, key] : bound)
    if (!declared.count({command, key})) extra.push_back(command + ": " + key);
  EXPECT_THAT(missing, ::testing::IsEmpty()) << "declared for a command that never binds it";
  EXPECT_THAT(extra, ::testing::IsEmpty());
  EXPECT_EQ(bound.size(), k.state->bound.size()) << "a command bound one key twice";
}

TEST(OptionRegistry, AKeyTheRegistryDoesNotListForTheCommandIsRefused) {
  CLI::App app("t", "kforge");
  CommandLine eval(*app.add_subcommand("eval"), "eval", std::make_shared<AppState>());
  int iterations = 5;
  EXPECT_THROW(eval.bind("iterations", iterations), std::logic_error);  // auto's, not eval's
  EXPECT_THROW(eval.bind("no-such-option", iterations), std::logic_error);
  EXPECT_THROW(eval.require("task"), std::logic_error);  // not bound yet
}

// --threads was range-checked by eval, bench and auto only; search and hitl took --threads 0.
TEST(OptionRegistry, ChecksApplyToEveryCommandThatTakesTheOption) {
  for (const auto* command : {"eval", "bench", "auto", "search", "hitl"}) {
    for (const auto& bad : std::vector<std::vector<std::string>>{{"--threads", "0"},
                                                                 {"--budget", "0.01"},
                                                                 {"--threads", "two"},
                                                                 {"--budget", "nan"},
                                                                 {"--budget", "inf"},
                                                                 {"--budget", "-nan"}}) {
      auto k = quiet_app();
      std::vector<std::string> words = {command};
      words.insert(words.end(), bad.begin(), bad.end());
      EXPECT_THROW(parse(*k.app, words), CLI::ParseError)
          << command << " " << bad[0] << " " << bad[1];
    }
    auto k = quiet_app();
    EXPECT_THROW(parse(*k.app, {command, "--size"}), CLI::ParseError)
        << command << ": --size needs a value";
  }
}

// NaN passed every range check (each comparison with it is false): an honest kernel then timed
// out on `--timeout nan`.
TEST(OptionRegistry, NotANumberIsOutOfEveryRange) {
  for (const auto* value : {"nan", "NaN", "inf", "-inf"}) {
    auto k = quiet_app();
    EXPECT_THROW(parse(*k.app, {"eval", "t", "k.cpp", "--timeout", value}), CLI::ParseError)
        << value;
  }
  auto k = quiet_app();
  EXPECT_NO_THROW(parse(*k.app, {"eval", "t", "k.cpp", "--timeout", "2.5", "--budget", "1e-1"}));
}

// The environment variable declared with an option stands in for it, checked the same way.
TEST(OptionRegistry, DeclaredVariableStandsInForTheOption) {
  ::setenv("KFORGE_PEAK_BUDGET_S", "45", 1);
  {
    auto k = quiet_app();
    parse(*k.app, {"hw"});
    EXPECT_EQ(k.app->get_subcommand("hw")->get_option("--budget")->as<double>(), 45);
  }
  ::setenv("KFORGE_PEAK_BUDGET_S", "1", 1);  // below the option's range
  {
    auto k = quiet_app();
    EXPECT_THROW(parse(*k.app, {"hw"}), CLI::ParseError);
  }
  ::unsetenv("KFORGE_PEAK_BUDGET_S");
}

// One help text per option; the default shown is each command's own.
TEST(OptionRegistry, HelpShowsEachCommandsOwnDefault) {
  auto k = make_app();
  const auto budget = [&](const char* command) {
    return k.app->get_subcommand(command)->get_option("--budget")->get_default_str();
  };
  EXPECT_EQ(budget("eval"), "2");
  EXPECT_EQ(budget("auto"), "1");
  EXPECT_EQ(k.app->get_subcommand("eval")->get_option("--budget")->get_description(),
            k.app->get_subcommand("search")->get_option("--budget")->get_description());
}

// Completion reads the real app: the registry's type names and choices reach it.
TEST(OptionRegistry, CompletionSeesTheRegistrysTypesAndChoices) {
  auto k = make_app();
  const auto model = completion_model(*k.app);
  int sizes = 0;
  for (const auto& c : model)
    for (const auto& o : c.options)
      if (o.names.front() == "--size") {
        EXPECT_EQ(o.arg.values, Values::sizes) << c.path.back();
        ++sizes;
      } else if (o.names.front() == "--algorithm") {
        EXPECT_THAT(o.arg.choices, ::testing::ElementsAre("parallel", "beam", "evolve"));
      }
  EXPECT_EQ(sizes, 6);  // eval, show, bench, auto, search, hitl
}

}  // namespace
}  // namespace kforge::cli
