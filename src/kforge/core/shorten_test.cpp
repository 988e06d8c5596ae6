// Shortening: short text is unchanged; long text stops at a paragraph, else a sentence, else a
// word boundary, never inside a word or a UTF-8 character, and says that it was cut.
#include "kforge/core/shorten.h"

#include <gtest/gtest.h>

namespace kforge::core {
namespace {

TEST(Shorten, FitsUnchanged) { EXPECT_EQ(shorten("short text.", 100), "short text."); }

TEST(Shorten, StopsAtASentence) {
  std::string t = "Tile the rows. Then vectorize the inner loop with AVX2 and unroll it four times";
  EXPECT_EQ(shorten(t, 40), "Tile the rows. […]");
}

TEST(Shorten, PrefersAParagraph) {
  std::string t = "First paragraph. It has two sentences.\n\nSecond paragraph goes on and on";
  EXPECT_EQ(shorten(t, 60), "First paragraph. It has two sentences. […]");
}

TEST(Shorten, NeverCutsAWord) {
  std::string t = "vectorize everything possible with intrinsics";
  EXPECT_EQ(shorten(t, 20), "vectorize everything […]");
  std::string cut = shorten(t, 14);
  EXPECT_EQ(cut, "vectorize […]");
}

// A table cell or a progress line ends with "…" at a word's end, never "Profiler: far fro".
TEST(Shorten, TakesTheMarkerOfItsReader) {
  EXPECT_EQ(shorten("Profiler: far from the roofline", 17, "…"), "Profiler: far…");
  EXPECT_EQ(shorten("use OpenMP and vectorize the inner loop", 30, "…"),
            "use OpenMP and vectorize the…");
}

TEST(Shorten, OneLongWordStopsAtACharacterBoundary) {
  std::string t = "ééééééééé";  // two bytes each
  std::string cut = shorten(t, 5);
  EXPECT_EQ(cut, "éé […]");
}

}  // namespace
}  // namespace kforge::core
