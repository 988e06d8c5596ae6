// kforge: one binary, a table of subcommands. Expected failures are exit statuses with a
// message; an exception that reaches here means kforge itself is wrong, and says so.
#include <fmt/format.h>

#include "kforge/cli/app.h"
#include "kforge/cli/common.h"
#include "kforge/cli/suggestions.h"
#include "kforge/llm/interrupt.h"

int main(int argc, char** argv) {
  auto kforge = kforge::cli::make_app();
  CLI::App& app = *kforge.app;
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // A mistyped command or option is named with the closest real one (not --help, --version).
    if (auto unknown =
            e.get_exit_code() != 0 ? kforge::cli::explain_unknown_word(app) : std::nullopt) {
      fmt::print(stderr, "{}\n", *unknown);
      return kforge::cli::kExitUsage;
    }
    int code = app.exit(e);
    return code == 0 ? 0 : kforge::cli::kExitUsage;
  } catch (const kforge::cli::UsageError& e) {
    fmt::print(stderr, "kforge: {}\n", e.what());
    return kforge::cli::kExitUsage;
  } catch (const kforge::cli::InternalError& e) {
    fmt::print(stderr,
               "kforge: internal error, a fault of the task or of kforge, not of the command "
               "(please report): {}\n",
               e.what());
    return kforge::cli::kExitInternal;
  } catch (const std::exception& e) {
    fmt::print(stderr, "kforge: internal error (please report): {}\n", e.what());
    return kforge::cli::kExitInternal;
  }
  // A command stopped by Ctrl-C has saved what it had and ended cleanly; it still did not finish.
  if (kforge::llm::interrupt_requested()) return 130;
  return kforge.state->exit_status;
}
