#pragma once
// Trimming text at both ends, written once: task notes, model replies, model specs and HTTP
// headers all trim, and each used to carry its own copy.

#include <string_view>

namespace kforge::core {

inline constexpr std::string_view kWhitespace = " \t\r\n\f\v";

// `s` without the leading and trailing characters found in `chars`.
inline std::string_view trim(std::string_view s, std::string_view chars = kWhitespace) {
  const auto first = s.find_first_not_of(chars);
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(chars) - first + 1);
}

}  // namespace kforge::core
