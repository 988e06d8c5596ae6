#pragma once
// A word on the command line that no command or option matched, named with the closest real one:
// "kforge eval: unknown option '--jsn' (did you mean '--json'?)".

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

namespace kforge::cli {

// After a failed parse of `root`: the message for the first word nothing matched, a mistyped
// command or option, with the candidates taken from the app itself. nullopt when the failure was
// about something else (a missing argument, a bad value), which CLI11 words well enough.
std::optional<std::string> explain_unknown_word(const CLI::App& root);

// "kforge", "kforge eval", "kforge llm ping": how a user names `app`.
std::string command_path(const CLI::App& app);

}  // namespace kforge::cli
