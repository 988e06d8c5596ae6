#pragma once
// Shell completion, generated from the CLI::App itself so that it cannot drift from the commands:
// what each command accepts (completion_model), written as a bash, zsh or fish script.

#include <string>
#include <vector>

namespace CLI {
class App;
}  // namespace CLI

namespace kforge::cli {

// What completes an option's value or a positional argument.
enum class Values {
  none,     // a flag: nothing follows it
  any,      // a number or free text: nothing to offer
  files,    // paths
  tasks,    // task ids of the default suite (asked of kforge at completion time)
  sizes,    // size names of the default suite (likewise)
  choices,  // a fixed list (a CLI::IsMember check)
};

struct CompletionArg {
  Values values = Values::any;
  std::vector<std::string> choices;
};

struct CompletionOption {
  std::vector<std::string> names;  // "--size", "-q"
  std::string help;
  CompletionArg arg;
};

struct CompletionCommand {
  std::vector<std::string> path;  // {"kforge"}, {"kforge", "eval"}, {"kforge", "llm", "ping"}
  std::string help;
  std::vector<std::string> subcommands;
  std::vector<CompletionOption> options;  // its own and those it inherits from the commands above
  std::vector<CompletionArg> positionals;
  bool last_repeats = false;  // the last positional takes any number of words
};

// Every command reachable from `root`, parents before children; hidden ones (no group) left out.
std::vector<CompletionCommand> completion_model(const CLI::App& root);

// The scripts; `program` is the command name they complete.
std::string bash_completion(const std::vector<CompletionCommand>& model,
                            const std::string& program);
std::string zsh_completion(const std::vector<CompletionCommand>& model, const std::string& program);
std::string fish_completion(const std::vector<CompletionCommand>& model,
                            const std::string& program);

}  // namespace kforge::cli
