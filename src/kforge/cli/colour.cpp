// Colour on stdout: when, and which.
#include "kforge/cli/colour.h"

#include <unistd.h>

#include <array>

#include "kforge/cli/common.h"
#include "kforge/cli/settings.h"

namespace kforge::cli {
namespace {

std::string_view code(Colour c) {
  switch (c) {
    case Colour::green:
      return "\x1b[32m";
    case Colour::red:
      return "\x1b[31m";
    case Colour::yellow:
      return "\x1b[33m";
  }
  return "";
}

}  // namespace

// An explicit always/never is the user's word for kforge and wins; NO_COLOR is their word for
// every program, so it beats only the terminal test.
bool colour_wanted(std::string_view when, std::string_view no_color, bool colour_terminal) {
  if (when == "always") return true;
  if (when == "never") return false;
  if (!no_color.empty()) return false;
  return colour_terminal;
}

bool colour_enabled() {
  const Settings s = current_settings();
  const bool terminal = isatty(STDOUT_FILENO) && s.term != "dumb";
  return colour_wanted(s.colour, s.no_color, terminal);
}

std::string paint(std::string_view text, Colour colour) {
  if (text.empty() || !colour_enabled()) return std::string(text);
  return std::string(code(colour)).append(text).append("\x1b[0m");
}

std::string paint_verdict(std::string_view verdict) {
  constexpr std::array<std::string_view, 3> kRed = {"incorrect", "compile_error", "runtime_error"};
  constexpr std::array<std::string_view, 4> kYellow = {"timeout", "sandbox_violation",
                                                       "input_modified", "link_refused"};
  if (verdict == "correct") return paint(verdict, Colour::green);
  for (auto v : kRed)
    if (verdict == v) return paint(verdict, Colour::red);
  if (verdict.starts_with("error")) return paint(verdict, Colour::red);
  for (auto v : kYellow)
    if (verdict == v) return paint(verdict, Colour::yellow);
  return std::string(verdict);
}

// Compared as printed ("1.00x" stays plain even when the ratio is 0.999).
std::string paint_ratio(double r) {
  std::string text = format_ratio(r);
  if (text == format_ratio(1.0)) return text;
  return paint(text, r > 1 ? Colour::green : Colour::red);
}

}  // namespace kforge::cli
