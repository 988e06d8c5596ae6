#pragma once
// A lint for references: every line that may hold a guard (a clip, clamp, mask or select) must
// either count it through kforge/guard_probe.h or say, in a comment on the line or just above it,
// why it is no guard ("not a guard: …", e.g. the softmax's max, an index bound) or why it cannot
// fire ("never fires: …", e.g. tanh keeps the value inside the clamp).
//
// What counts as a possible guard, in code (comments and strings removed):
//   - std::clamp, min, max, fmin, fmax and the *_element / minmax forms;
//   - a ternary select (?), an if or a while;
//   - any name containing "mask";
//   - a for loop whose bound is a plain lower-case variable (j <= i, t < len, i < sizes[g]): a
//     causal or length mask written as a loop bound. Names declared constexpr in the file, and
//     names assigned on a line that passes the lint, are not variables in this sense.
// Deliberately simple: it reads lines, not C++, and errs on the side of asking.

#include <string>
#include <string_view>
#include <vector>

namespace kforge::suite {

struct LintFinding {
  int line = 0;      // 1-based
  std::string code;  // the line as written
  std::string why;   // what made it a possible guard
};

std::vector<LintFinding> lint_guards(std::string_view source);

}  // namespace kforge::suite
