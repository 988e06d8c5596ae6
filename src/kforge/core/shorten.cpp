// Looking backwards from the limit for the best boundary.
#include "kforge/core/shorten.h"

namespace kforge::core {
namespace {

bool sentence_end(std::string_view t,
                  std::size_t i) {  // t[i] ends a sentence and a space or line follows
  return (t[i] == '.' || t[i] == '?' || t[i] == '!') && i + 1 < t.size() &&
         (t[i + 1] == ' ' || t[i + 1] == '\n');
}

std::string trimmed(std::string_view t) {
  while (!t.empty() && (t.back() == ' ' || t.back() == '\n' || t.back() == '\t'))
    t.remove_suffix(1);
  return std::string(t);
}

}  // namespace

std::string shorten(std::string_view text, std::size_t max_bytes, std::string_view marker) {
  if (text.size() <= max_bytes) return std::string(text);
  std::size_t paragraph = 0, sentence = 0, word = 0;
  for (std::size_t i = 1; i <= max_bytes; ++i) {  // a boundary right at the limit keeps max_bytes
    if (text[i] == '\n' && text[i - 1] == '\n') paragraph = i;
    if (sentence_end(text, i - 1)) sentence = i;
    if (text[i] == ' ' || text[i] == '\n' || text[i] == '\t') word = i;
  }
  std::size_t cut = paragraph >= max_bytes / 2  ? paragraph
                    : sentence >= max_bytes / 3 ? sentence
                                                : word;
  if (cut == 0) {  // one long word: stop before the limit at a character boundary
    cut = max_bytes;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  }
  return trimmed(text.substr(0, cut)) + std::string(marker);
}

}  // namespace kforge::core
