#pragma once
// "Did you mean …?": the known name closest to a mistyped one (a task id, a size, a config key),
// so a usage error can say how to fix it.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kforge::core {

// Levenshtein distance: insertions, deletions and substitutions each cost one.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `word`: among those containing it ("rmsnorm" → "12p_rmsnorm"), else
// among all, the one with the fewest edits, if that is at most a third of the word (at least 2).
// nullopt when nothing is that close.
std::optional<std::string> closest_name(std::string_view word,
                                        const std::vector<std::string>& candidates);

// "; did you mean 'X'?" for the closest candidate, or "" when there is none.
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace kforge::core
