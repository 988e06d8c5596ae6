// The root of kforge's command line: --version, --quiet, --color and --pyenv for every command,
// then the table of commands. What the root's options mean is applied once the line is parsed.
#include "kforge/cli/app.h"

#include <cstdlib>
#include <filesystem>

#include "kforge/cli/commands.h"
#include "kforge/cli/common.h"
#include "kforge/cli/option_registry.h"
#include "kforge/cli/settings.h"

namespace kforge::cli {
namespace {

// The root's options, kept until the line is parsed.
struct RootOptions {
  bool quiet = false;
  std::string colour = "auto";
  std::string pyenv;  // KFORGE_PYENV
};

}  // namespace

KforgeApp make_app() {
  KforgeApp out{
      std::make_unique<CLI::App>(
          "kforge: writes fast, verified compute kernels, and judges them honestly", "kforge"),
      std::make_shared<AppState>()};
  CLI::App& app = *out.app;
  app.set_version_flag("--version", std::string("kforge ") + KFORGE_VERSION);
  app.require_subcommand(1);
  app.fallthrough();
  CommandLine root(app, kRootCommand, out.state);
  auto o = std::make_shared<RootOptions>();
  root.bind("quiet", o->quiet);
  root.bind("color", o->colour);
  root.bind("pyenv", o->pyenv);
  for (const auto& command : kCommands) {
    CommandLine line = root.subcommand(command.name, command.help);
    command.add(line);
    if (command.hidden) app.get_subcommand(command.name)->group("");
  }
  // The settings the root's options change are passed on through the environment on purpose: the
  // progress and colour layers (common.cpp, colour.cpp) read them from there, and so does every
  // child kforge starts. Then every command but the read-only ones checks its state folder once,
  // before any work.
  app.parse_complete_callback([&app, o] {
    if (o->quiet) setenv("KFORGE_PROGRESS", "0", 1);
    setenv("KFORGE_COLOR", o->colour.c_str(), 1);
    // Absolute: the workers and jobs that inherit it start in other folders.
    if (!o->pyenv.empty()) setenv("KFORGE_PYENV", std::filesystem::absolute(o->pyenv).c_str(), 1);
    (void)current_settings();  // a malformed variable is refused now, before any work, not midway
    for (const char* read_only : {"list", "show", "compare", "completion"})
      if (app.got_subcommand(read_only)) return;
    require_writable_state_dir();
  });
  return out;
}

}  // namespace kforge::cli
