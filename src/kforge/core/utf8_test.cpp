// UTF-8 repair: valid text (ASCII, accents, CJK, emoji) passes unchanged; stray bytes, overlong
// forms, surrogates and a character cut short at the end each become one U+FFFD.
#include "kforge/core/utf8.h"

#include <gtest/gtest.h>

namespace kforge::core {
namespace {

const std::string kFffd = "\xEF\xBF\xBD";

TEST(Utf8, ValidTextIsUnchanged) {
  for (std::string s : {std::string(), std::string("plain ascii\n"),
                        std::string("caf\xC3\xA9 \xE6\xBC\xA2\xE5\xAD\x97 \xF0\x9F\x9A\x80"),
                        std::string("nul \0 inside", 12)}) {
    EXPECT_EQ(valid_utf8(s), s);
    EXPECT_EQ(first_invalid_utf8(s), std::string::npos);
  }
}

TEST(Utf8, InvalidBytesAreReplaced) {
  EXPECT_EQ(valid_utf8("a\xFF\xFE"
                       "b"),
            "a" + kFffd + kFffd + "b");
  EXPECT_EQ(first_invalid_utf8("a\xFF\xFE"), 1u);
  EXPECT_EQ(valid_utf8("\x80"), kFffd);                          // a continuation byte alone
  EXPECT_EQ(valid_utf8("\xC0\xAF"), kFffd + kFffd);              // overlong '/'
  EXPECT_EQ(valid_utf8("\xED\xA0\x80"), kFffd + kFffd + kFffd);  // a UTF-16 surrogate
  EXPECT_EQ(valid_utf8("\xF4\x90\x80\x80"), kFffd + kFffd + kFffd + kFffd);  // above U+10FFFF
  EXPECT_EQ(valid_utf8("x\xE2\x82y"), "x" + kFffd + "y");  // a sequence broken in the middle
}

TEST(Utf8, TruncatedCharacterAtTheEndIsReplaced) {
  std::string euro = "\xE2\x82\xAC";
  EXPECT_EQ(valid_utf8("price " + euro.substr(0, 2)), "price " + kFffd);
  EXPECT_EQ(valid_utf8("\xF0\x9F\x9A"), kFffd);
  EXPECT_EQ(first_invalid_utf8("ok\xC3"), 2u);
  EXPECT_EQ(first_invalid_utf8(valid_utf8("ok\xC3")), std::string::npos);
}

}  // namespace
}  // namespace kforge::core
