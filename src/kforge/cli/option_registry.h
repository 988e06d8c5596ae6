#pragma once
// Every option and positional argument of every kforge command, declared once (llama.cpp's
// common_arg registry): its names, its help, the commands that take it, the environment variable
// that stands in for it, and the check on its value. Commands only bind a declared key to a
// variable (command_line.h), so two commands cannot drift apart on one flag.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kforge::cli {

// Type names that say what an argument holds, shown in --help and read by shell completion.
inline constexpr const char* kTaskType = "TASK";
inline constexpr const char* kSizeType = "SIZE";

// The command that declares an option the root's (it falls through to every command below).
inline constexpr const char* kRootCommand = "kforge";

struct ValueRange {
  double low, high;
};

struct OptionSpec {
  std::string key;  // what a command binds: "threads", "peak-budget"
  std::string
      names;  // as CLI11 takes them: "--remeasure,--refresh", "-q,--quiet"; a positional's name
  std::string help;
  std::vector<std::string>
      commands;           // command paths below the root ("eval", "llm ping"), or kRootCommand
  std::string env;        // the variable read when the option is not given ("": none)
  std::string type_name;  // kTaskType, kSizeType, or "" (CLI11's own)
  std::optional<ValueRange> range;
  std::vector<std::string> choices;  // the only values allowed ({}: any)
  bool show_default = false;         // the bound variable's initial value appears in --help
  bool hidden = false;               // for scripts only: neither --help nor completion shows it

  bool positional() const { return !names.empty() && names[0] != '-'; }
  bool taken_by(std::string_view command) const;
};

const std::vector<OptionSpec>& option_registry();

// The declaration of `key` for `command`; nullptr when none lists that command.
const OptionSpec* find_option(std::string_view key, std::string_view command);

// Every (command, option name) declared more than once, and every key declared twice for one
// command, as readable lines ("eval: --size declared by 'size' and 'size2'"); empty when none.
std::vector<std::string> registry_conflicts(const std::vector<OptionSpec>& registry);

}  // namespace kforge::cli
