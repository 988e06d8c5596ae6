#pragma once
// What a command declares its arguments on: keys of the option registry bound to its variables,
// and what it runs. CLI11 stays behind this face (command_line.cpp, app.cpp), so a command file
// compiles without it, and a command cannot declare an option the registry does not hold.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace kforge::cli {

// What the commands of one app share: the exit status the command that ran set, and which keys
// each command bound (the registry test compares them with the registry).
struct AppState {
  int exit_status = 0;
  std::vector<std::pair<std::string, std::string>> bound;  // (command path, key)
};

class CommandLine {
 public:
  // `path`: the command below the root ("eval", "llm ping"), or kRootCommand.
  CommandLine(CLI::App& app, std::string path, std::shared_ptr<AppState> state);

  // Binds the registry's `key` for this command to `target`; its initial value is the default.
  // A key the registry does not list for this command is a bug: std::logic_error.
  void bind(std::string_view key, std::string& target);
  void bind(std::string_view key, std::vector<std::string>& target);
  void bind(std::string_view key, int& target);
  void bind(std::string_view key, unsigned& target);
  void bind(std::string_view key, std::int64_t& target);
  void bind(std::string_view key, double& target);
  void bind(std::string_view key, bool& target);  // a flag
  // A flag that does something when given (graph's --json sets the format).
  void bind_flag(std::string_view key, std::function<void()> on_set);

  // A bound argument that must be given.
  void require(std::string_view key);
  // Two bound options that may not be given together.
  void exclusive(std::string_view a, std::string_view b);

  // A command below this one (`kforge llm ping`); require_subcommand: one must be named.
  CommandLine subcommand(const std::string& name, const std::string& help);
  void require_subcommand();

  // What the command does once its line is parsed; the int is kforge's exit status.
  void on_run(std::function<int()> run);
  // Likewise, for a command that reads the whole app (completion writes scripts from it).
  void on_run_with_app(std::function<int(const CLI::App& root)> run);

  const std::string& path() const { return path_; }

 private:
  template <typename T>
  void add(std::string_view key, T& target);
  CLI::Option& declared(std::string_view key) const;

  CLI::App* app_;
  std::string path_;
  std::shared_ptr<AppState> state_;
  std::map<std::string, CLI::Option*, std::less<>> options_;
};

}  // namespace kforge::cli
