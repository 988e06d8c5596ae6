// kforge: one binary, a table of subcommands. Expected failures are exit statuses with a
// message; an exception that reaches here means kforge itself is wrong, and says so.
#include <fmt/format.h>

#include "kforge/cli/commands.h"
#include "kforge/cli/common.h"
#include "kforge/cli/suggestions.h"
#include "kforge/llm/interrupt.h"

int main(int argc, char** argv) {
  CLI::App app{"kforge: writes fast, verified compute kernels, and judges them honestly", "kforge"};
  app.set_version_flag("--version", std::string("kforge ") + KFORGE_VERSION);
  app.require_subcommand(1);
  int exit_status = 0;
  // --quiet, for every command (before or after the command's name): no progress lines.
  bool quiet = false;
  app.add_flag("--quiet,-q", quiet, "No progress lines on stderr (also KFORGE_PROGRESS=0)");
  // --color, for every command: whether tables and summaries are painted (colour.h reads it back
  // from KFORGE_COLOR, so the variable and the flag are one setting).
  std::string colour = "auto";
  app.add_option("--color", colour, "Colour on stdout: auto (on a terminal, unless NO_COLOR is set), always or never")
      ->envname("KFORGE_COLOR")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  app.fallthrough();
  for (const auto& command : kforge::cli::kCommands) command.add(*app.add_subcommand(command.name, command.help), exit_status);
  // Every command but the read-only ones keeps state: check its folder once, before any work.
  app.parse_complete_callback([&app, &quiet, &colour] {
    if (quiet) setenv("KFORGE_PROGRESS", "0", 1);
    setenv("KFORGE_COLOR", colour.c_str(), 1);
    for (const char* read_only : {"list", "show", "compare", "completion"})
      if (app.got_subcommand(read_only)) return;
    kforge::cli::require_writable_state_dir();
  });
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // A mistyped command or option is named with the closest real one (not --help, --version).
    if (auto unknown = e.get_exit_code() != 0 ? kforge::cli::explain_unknown_word(app) : std::nullopt) {
      fmt::print(stderr, "{}\n", *unknown);
      return 2;
    }
    int code = app.exit(e);
    return code == 0 ? 0 : 2;
  } catch (const kforge::cli::UsageError& e) {
    fmt::print(stderr, "kforge: {}\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "kforge: internal error (please report): {}\n", e.what());
    return 70;
  }
  // A command stopped by Ctrl-C has saved what it had and ended cleanly; it still did not finish.
  if (kforge::llm::interrupt_requested()) return 130;
  return exit_status;
}
