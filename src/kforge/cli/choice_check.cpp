// An option's fixed set of values, with "did you mean" for a value outside it.
#include "kforge/cli/choice_check.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "kforge/core/suggest.h"

namespace kforge::cli {

CLI::Validator choice_check(std::vector<std::string> choices) {
  const std::string description = fmt::format("{{{}}}", fmt::join(choices, ","));
  return CLI::Validator(
      [choices = std::move(choices)](std::string& value) -> std::string {
        if (std::find(choices.begin(), choices.end(), value) != choices.end()) return "";
        return fmt::format("'{}' is not one of {}{}", value, fmt::join(choices, ", "),
                           core::did_you_mean(value, choices));
      },
      description);
}

}  // namespace kforge::cli
