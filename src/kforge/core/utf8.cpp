// UTF-8 validation and repair (the well-formed sequences of Unicode's Table 3-7).
#include "kforge/core/utf8.h"

namespace kforge::core {
namespace {

struct Sequence {
  std::size_t length;  // bytes consumed: the whole character, or the invalid subpart to replace
  bool valid;
};

// The sequence starting at text[at]. Only the second byte has a narrower range than 80..BF
// (E0, ED, F0 and F4 exclude overlong forms, surrogates and code points above U+10FFFF).
Sequence next_sequence(std::string_view text, std::size_t at) {
  auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  unsigned char lead = byte(at);
  if (lead < 0x80) return {1, true};
  std::size_t trailing = 0;
  unsigned char low = 0x80, high = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF)
    trailing = 1;
  else if (lead == 0xE0)
    trailing = 2, low = 0xA0;
  else if (lead == 0xED)
    trailing = 2, high = 0x9F;
  else if (lead >= 0xE1 && lead <= 0xEF)
    trailing = 2;
  else if (lead == 0xF0)
    trailing = 3, low = 0x90;
  else if (lead == 0xF4)
    trailing = 3, high = 0x8F;
  else if (lead >= 0xF1 && lead <= 0xF3)
    trailing = 3;
  else
    return {1, false};  // 80..C1 (continuation or overlong lead), F5..FF
  for (std::size_t k = 1; k <= trailing; ++k) {
    if (at + k >= text.size()) return {k, false};  // cut short at the end
    unsigned char c = byte(at + k);
    bool in_range = k == 1 ? (c >= low && c <= high) : (c >= 0x80 && c <= 0xBF);
    if (!in_range) return {k, false};
  }
  return {trailing + 1, true};
}

}  // namespace

std::size_t first_invalid_utf8(std::string_view text) {
  for (std::size_t at = 0; at < text.size();) {
    Sequence s = next_sequence(text, at);
    if (!s.valid) return at;
    at += s.length;
  }
  return std::string_view::npos;
}

std::string valid_utf8(std::string_view text) {
  std::size_t bad = first_invalid_utf8(text);
  if (bad == std::string_view::npos) return std::string(text);
  std::string out(text.substr(0, bad));
  out.reserve(text.size() + 16);
  for (std::size_t at = bad; at < text.size();) {
    Sequence s = next_sequence(text, at);
    if (s.valid)
      out.append(text.substr(at, s.length));
    else
      out += "\xEF\xBF\xBD";  // U+FFFD REPLACEMENT CHARACTER
    at += s.length;
  }
  return out;
}

}  // namespace kforge::core
