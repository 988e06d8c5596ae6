// Finding the named algorithm: whole words, any case, so "winograd" in a comment counts and
// "offtrack" does not read as an FFT.
#include "kforge/agents/cheaper_algorithm.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace kforge::agents {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// `word` (lower case) starting a word of `text` (lower case): "fft" in "rfft"? no; in "fft_n"? no
// ('_' joins words in code); in "ffts"? yes (a plural).
bool names(const std::string& text, std::string_view word) {
  for (auto at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) {
    const bool starts = at == 0 || !word_char(text[at - 1]);
    const auto end = at + word.size();
    const bool ends = end >= text.size() || !word_char(text[end]) || text[end] == 's';
    if (starts && ends) return true;
  }
  return false;
}

}  // namespace

std::string fewer_operations_algorithm(std::string_view text, bool task_degenerate) {
  const std::string t = lower(text);
  if (names(t, "winograd")) return "a Winograd convolution";
  if (names(t, "fft") || t.find("fourier") != std::string::npos) return "an FFT";
  if (names(t, "strassen")) return "Strassen's multiplication";
  if (task_degenerate) {
    static constexpr std::array<std::string_view, 6> skipping = {
        "skip", "elide", "closed form", "closed-form", "never computed", "short-circuit"};
    for (auto w : skipping)
      if (t.find(w) != std::string::npos) return "skipping work the task's notes call degenerate";
  }
  return "";
}

std::string roofline_caveat(const std::string& algorithm) {
  if (algorithm.empty()) return "";
  return "it uses " + algorithm +
         ", which does fewer operations than the cost model counts: this fraction overstates how "
         "close it is to the machine's limit; judge it by its time";
}

}  // namespace kforge::agents
