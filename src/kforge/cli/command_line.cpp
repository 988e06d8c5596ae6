// Binding registry keys to a command's variables: the one place that turns a declaration
// (option_registry.cpp) into a CLI11 option.
#include "kforge/cli/command_line.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <stdexcept>
#include <type_traits>

#include "kforge/cli/choice_check.h"
#include "kforge/cli/option_registry.h"

#include <cmath>

namespace kforge::cli {
namespace {

// The registry's range, as CLI11 checks it; whole numbers for integer targets, so that --help
// reads "[1 - 1024]", not "[1.000000 - 1024.000000]".
// Floating-point values must also be numbers: CLI11's Range compares, and every comparison with
// NaN is false, so `--budget nan` passed and an honest kernel became a `timeout`.
template <typename T>
CLI::Validator range_check(const ValueRange& r) {
  if constexpr (std::is_integral_v<T>)
    return CLI::Range(static_cast<long long>(r.low), static_cast<long long>(r.high));
  else
    return CLI::Validator(
        [r](std::string& text) -> std::string {
          double v = 0;
          if (!CLI::detail::lexical_cast(text, v) || !std::isfinite(v) || v < r.low || v > r.high)
            return fmt::format("Value {} not in range [{} - {}]", text, r.low, r.high);
          return "";
        },
        fmt::format("[{} - {}]", r.low, r.high));
}

}  // namespace

CommandLine::CommandLine(CLI::App& app, std::string path, std::shared_ptr<AppState> state)
    : app_(&app), path_(std::move(path)), state_(std::move(state)) {}

template <typename T>
void CommandLine::add(std::string_view key, T& target) {
  const OptionSpec* spec = find_option(key, path_);
  if (!spec)
    throw std::logic_error(
        fmt::format("kforge {}: option '{}' is not in the registry for this command", path_, key));
  CLI::Option* o = nullptr;
  if constexpr (std::is_same_v<T, bool>)
    o = app_->add_flag(spec->names, target, spec->help);
  else
    o = app_->add_option(spec->names, target, spec->help);
  if (!spec->env.empty()) o->envname(spec->env);
  if (!spec->type_name.empty()) o->type_name(spec->type_name);
  if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>)
    if (spec->range) o->check(range_check<T>(*spec->range));
  if (!spec->choices.empty()) o->check(choice_check(spec->choices));
  if (spec->show_default) o->capture_default_str();
  if (spec->hidden) o->group("");
  options_.emplace(std::string(key), o);
  state_->bound.emplace_back(path_, std::string(key));
}

void CommandLine::bind(std::string_view key, std::string& target) { add(key, target); }
void CommandLine::bind(std::string_view key, std::vector<std::string>& target) { add(key, target); }
void CommandLine::bind(std::string_view key, int& target) { add(key, target); }
void CommandLine::bind(std::string_view key, unsigned& target) { add(key, target); }
void CommandLine::bind(std::string_view key, std::int64_t& target) { add(key, target); }
void CommandLine::bind(std::string_view key, double& target) { add(key, target); }
void CommandLine::bind(std::string_view key, bool& target) { add(key, target); }

void CommandLine::bind_flag(std::string_view key, std::function<void()> on_set) {
  const OptionSpec* spec = find_option(key, path_);
  if (!spec)
    throw std::logic_error(
        fmt::format("kforge {}: option '{}' is not in the registry for this command", path_, key));
  CLI::Option* o = app_->add_flag_callback(spec->names, std::move(on_set), spec->help);
  if (spec->hidden) o->group("");
  options_.emplace(std::string(key), o);
  state_->bound.emplace_back(path_, std::string(key));
}

CLI::Option& CommandLine::declared(std::string_view key) const {
  auto it = options_.find(key);
  if (it == options_.end())
    throw std::logic_error(fmt::format("kforge {}: '{}' is used before it is bound", path_, key));
  return *it->second;
}

void CommandLine::require(std::string_view key) { declared(key).required(); }
void CommandLine::exclusive(std::string_view a, std::string_view b) {
  declared(a).excludes(&declared(b));
}

CommandLine CommandLine::subcommand(const std::string& name, const std::string& help) {
  const std::string path = path_ == kRootCommand ? name : path_ + " " + name;
  return CommandLine(*app_->add_subcommand(name, help), path, state_);
}

void CommandLine::require_subcommand() { app_->require_subcommand(1); }

void CommandLine::on_run(std::function<int()> run) {
  app_->callback([run = std::move(run), state = state_] { state->exit_status = run(); });
}

void CommandLine::on_run_with_app(std::function<int(const CLI::App& root)> run) {
  app_->callback([run = std::move(run), state = state_, app = app_] {
    const CLI::App* root = app;
    while (root->get_parent()) root = root->get_parent();
    state->exit_status = run(*root);
  });
}

}  // namespace kforge::cli
