// The completion model: what each command accepts, read off the CLI::App.
#include "kforge/cli/completion.h"

#include <algorithm>
#include <set>

#include <CLI/CLI.hpp>

#include "kforge/cli/option_registry.h"

namespace kforge::cli {
namespace {

// "TEXT:{dot,svg,json}" (a CLI::IsMember check) → {"dot", "svg", "json"}.
std::vector<std::string> choices_in(const std::string& type) {
  const auto open = type.find(":{");
  const auto close = type.find('}', open);
  if (open == std::string::npos || close == std::string::npos) return {};
  std::vector<std::string> out;
  std::string rest = type.substr(open + 2, close - open - 2);
  for (std::size_t start = 0, comma; start <= rest.size(); start = comma + 1) {
    comma = std::min(rest.find(',', start), rest.size());
    if (comma > start) out.push_back(rest.substr(start, comma - start));
  }
  return out;
}

CompletionArg arg_of(const CLI::Option& o) {
  if (o.get_expected_max() == 0 || o.get_type_size_max() == 0) return {Values::none, {}};  // a flag
  const std::string type = o.get_type_name();
  const std::string base = type.substr(0, type.find(':'));
  if (base == kTaskType) return {Values::tasks, {}};
  if (base == kSizeType) return {Values::sizes, {}};
  if (auto choices = choices_in(type); !choices.empty()) return {Values::choices, choices};
  if (base == "TEXT") return {Values::files, {}};  // most free-text arguments here are paths
  return {Values::any, {}};
}

bool shown(const CLI::Option* o) { return !o->get_group().empty(); }

// Options reach a command from every command above it (the app falls through); where a name is
// declared twice (--help on every command) the nearest declaration is the one used.
std::vector<CompletionOption> options_at(const CLI::App& app) {
  std::vector<CompletionOption> out;
  std::set<std::string> seen;
  for (const CLI::App* a = &app; a; a = a->get_parent())
    for (const auto* o :
         a->get_options([](const CLI::Option* o) { return shown(o) && !o->get_positional(); })) {
      CompletionOption opt{{}, o->get_description(), arg_of(*o)};
      for (const auto& l : o->get_lnames()) opt.names.push_back("--" + l);
      for (const auto& s : o->get_snames()) opt.names.push_back("-" + s);
      std::erase_if(opt.names, [&](const std::string& n) { return !seen.insert(n).second; });
      if (!opt.names.empty()) out.push_back(std::move(opt));
    }
  return out;
}

void add_command(const CLI::App& app, std::vector<std::string> path,
                 std::vector<CompletionCommand>& out) {
  CompletionCommand c{path, app.get_description(), {}, options_at(app), {}, false};
  for (const auto* o :
       app.get_options([](const CLI::Option* o) { return shown(o) && o->get_positional(); })) {
    c.positionals.push_back(arg_of(*o));
    c.last_repeats = o->get_items_expected_max() > 1;
  }
  const auto subs = app.get_subcommands([](const CLI::App* s) { return !s->get_group().empty(); });
  for (const auto* sub : subs) c.subcommands.push_back(sub->get_name());
  out.push_back(std::move(c));
  for (const auto* sub : subs) {
    path.push_back(sub->get_name());
    add_command(*sub, path, out);
    path.pop_back();
  }
}

}  // namespace

std::vector<CompletionCommand> completion_model(const CLI::App& root) {
  std::vector<CompletionCommand> out;
  add_command(root, {root.get_name()}, out);
  return out;
}

}  // namespace kforge::cli
