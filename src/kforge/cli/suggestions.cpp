// Unknown commands and options, with the closest known name (core::closest_name).
#include "kforge/cli/suggestions.h"

#include <fmt/format.h>

#include "kforge/core/suggest.h"

namespace kforge::cli {
namespace {

// The command the line reached: the root, then each subcommand named on it.
const CLI::App& deepest_command(const CLI::App& root) {
  const CLI::App* app = &root;
  for (auto subs = app->get_subcommands(); !subs.empty(); subs = app->get_subcommands())
    app = subs.back();
  return *app;
}

// Subcommands a user may name (hidden ones have no group).
std::vector<std::string> command_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const auto* sub :
       app.get_subcommands([](const CLI::App* s) { return !s->get_group().empty(); }))
    names.push_back(sub->get_name());
  return names;
}

// The options valid at `app`: its own and, since options fall through, its parents'.
std::vector<std::string> option_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* a = &app; a; a = a->get_parent())
    for (const auto* opt : a->get_options([](const CLI::Option* o) {
           return !o->get_positional() && !o->get_group().empty();
         })) {
      for (const auto& l : opt->get_lnames()) names.push_back("--" + l);
      for (const auto& s : opt->get_snames()) names.push_back("-" + s);
    }
  return names;
}

std::string hint(std::string_view word, const std::vector<std::string>& candidates,
                 const CLI::App& app) {
  if (auto name = core::closest_name(word, candidates))
    return fmt::format("did you mean '{}'?", *name);
  return fmt::format("see `{} --help`", command_path(app));
}

}  // namespace

std::string command_path(const CLI::App& app) {
  return app.get_parent() ? command_path(*app.get_parent()) + " " + app.get_name() : app.get_name();
}

std::optional<std::string> explain_unknown_word(const CLI::App& root) {
  const auto words = root.remaining(true);
  if (words.empty()) return std::nullopt;
  const CLI::App& at = deepest_command(root);
  const std::string& word = words.front();
  if (word.size() > 1 && word[0] == '-') {
    const std::string name = word.substr(0, word.find('='));  // --jsn=1: the name is --jsn
    return fmt::format("{}: unknown option '{}' ({})", command_path(at), name,
                       hint(name, option_names(at), at));
  }
  // A stray word is a mistyped command only where a command is expected; elsewhere it is an extra
  // argument, which CLI11 reports as such.
  const auto commands = command_names(at);
  if (commands.empty()) return std::nullopt;
  return fmt::format("{}: unknown command '{}' ({})", command_path(at), word,
                     hint(word, commands, at));
}

}  // namespace kforge::cli
