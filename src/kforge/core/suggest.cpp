// Closest-name suggestions for usage errors.
#include "kforge/core/suggest.h"

#include <fmt/format.h>

#include <algorithm>

namespace kforge::core {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::optional<std::string> closest_name(std::string_view word,
                                        const std::vector<std::string>& candidates) {
  if (word.empty()) return std::nullopt;
  const std::string* best = nullptr;
  std::size_t best_distance = 0;
  bool best_contains = false;
  for (const auto& c : candidates) {
    bool contains = c.find(word) != std::string::npos;
    std::size_t d = edit_distance(word, c);
    // A candidate that contains the word beats any that does not; then fewer edits win.
    if (!best || (contains && !best_contains) || (contains == best_contains && d < best_distance)) {
      best = &c;
      best_distance = d;
      best_contains = contains;
    }
  }
  if (!best) return std::nullopt;
  if (!best_contains && best_distance > std::max<std::size_t>(2, word.size() / 3))
    return std::nullopt;
  return *best;
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  auto name = closest_name(word, candidates);
  return name ? fmt::format("; did you mean '{}'?", *name) : std::string();
}

}  // namespace kforge::core
