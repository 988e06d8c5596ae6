// hash64 must be XXH64 exactly (known vectors), and the Hasher must separate its pieces.
#include "kforge/core/hash.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kforge::core {

TEST(Hash, MatchesXxh64ReferenceVectors) {
  EXPECT_EQ(hash64("", 0), 0xef46db3751d8e999ULL);
  EXPECT_EQ(hash64("a", 1), 0xd24ec4f1a98c6e5bULL);
  EXPECT_EQ(hash64("abc", 3), 0x44bc2cf5ad770999ULL);
  EXPECT_EQ(hash64("abc", 3, 7), 0x9e755206156676d7ULL);
  std::string hundred(100, 'x');
  EXPECT_EQ(hash64(hundred.data(), hundred.size()), 0x92f0de5a88a3c094ULL);
}

TEST(Hash, HasherKeepsPieceBoundaries) {
  EXPECT_NE(Hasher().add("ab").add("c").hex(), Hasher().add("a").add("bc").hex());
  EXPECT_EQ(Hasher().add("ab").add("c").hex(), Hasher().add("ab").add("c").hex());
  EXPECT_EQ(Hasher().add("x").hex().size(), 32u);
}

TEST(Hash, ParallelHashSeesEveryByte) {
  std::vector<unsigned char> data(5 << 20, 1);
  auto h = hash64_parallel(data.data(), data.size());
  data[3 << 20] = 2;
  EXPECT_NE(h, hash64_parallel(data.data(), data.size()));
  data[3 << 20] = 1;
  EXPECT_EQ(h, hash64_parallel(data.data(), data.size()));
}

}  // namespace kforge::core
