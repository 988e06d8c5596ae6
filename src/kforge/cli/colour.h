#pragma once
// Colour for humans on a terminal: verdicts and speedups painted so a table reads at a glance.
// Off in a pipe, with NO_COLOR (https://no-color.org) or --color=never; forced by --color=always.

#include <string>
#include <string_view>

namespace kforge::cli {

enum class Colour { green, red, yellow };

// The decision, from what --color / KFORGE_COLOR says ("auto", "always", "never"; empty is auto),
// NO_COLOR's value, and whether stdout is a terminal that shows colour.
bool colour_wanted(std::string_view when, std::string_view no_color, bool colour_terminal);

// colour_wanted() for this process's stdout and environment.
bool colour_enabled();

// `text` wrapped in the escape codes of `colour` when colour is enabled, else `text` itself.
std::string paint(std::string_view text, Colour colour);

// A verdict (or a bench row's "error: …" status): correct green, failures red, timeouts and
// refusals yellow; anything else unpainted.
std::string paint_verdict(std::string_view verdict);

// format_ratio(r), green when it reads above 1.00x, red when below.
std::string paint_ratio(double r);

}  // namespace kforge::cli
