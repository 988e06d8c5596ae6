// The shared TOML checker: an unknown key names the file, line, table, key and the keys allowed
// (with the closest); the first mistake is the one kept; a syntax error has its position.
#include "kforge/core/toml_checker.h"

#include <gtest/gtest.h>

namespace kforge::core {
namespace {

TEST(TomlChecker, AnUnknownKeyNamesFileTableKeyAndTheKeysAllowed) {
  auto root = parse_toml("[executor]\nkind = \"local\"\npartiton = \"gpu\"\n", "dir/kforge.toml");
  ASSERT_TRUE(root) << root.error().message;
  TomlChecker c("dir/kforge.toml");
  const auto* t = c.table(*root, "executor");
  ASSERT_NE(t, nullptr);
  c.only_keys(*t, "executor", {"kind", "partition"});
  ASSERT_TRUE(c.failed());
  EXPECT_EQ(c.error().message,
            "dir/kforge.toml:3:12: executor.partiton: unknown key in [executor] (allowed: kind, "
            "partition); did you mean 'partition'?");
  // A known key passes; nothing close gets no suggestion; a note follows the keys.
  TomlChecker ok("f.toml");
  ok.only_keys(*t, "executor", {"kind", "partiton"});
  EXPECT_FALSE(ok.failed()) << ok.error().message;
  TomlChecker far("f.toml");
  far.unknown_key(*t->get("kind"), "", "zzzz", {"input", "output"}, "USD per million tokens");
  EXPECT_EQ(far.error().message,
            "f.toml:2:8: zzzz: unknown key at the top level (allowed: input, output; USD per "
            "million tokens)");
}

TEST(TomlChecker, TheFirstMistakeIsKeptAndSyntaxErrorsHaveTheirPlace) {
  auto root = parse_toml("a = \"x\"\nb = 3.5\n", "f.toml");
  ASSERT_TRUE(root);
  TomlChecker c("f.toml");
  EXPECT_EQ(c.whole(*root->get("b"), "b", 0, 10), 0);
  EXPECT_EQ(c.number(*root->get("a"), "a"), 0);  // a second mistake: not the one reported
  EXPECT_EQ(c.error().message, "f.toml:2:5: b: must be a whole number from 0 to 10");
  EXPECT_EQ(c.table(*root, "a"), nullptr);
  auto bad = parse_toml("a = = 1\n", "bad.toml");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message.rfind("bad.toml:1:", 0), 0u) << bad.error().message;
}

}  // namespace
}  // namespace kforge::core
