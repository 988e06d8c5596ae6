// The comparison rule of the evaluation contract, including its treatment of NaN and infinity.
#include "kforge/core/compare.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace kforge::core {

TEST(Compare, ToleranceIsAtolPlusRtolTimesExpected) {
  std::vector<float> expected = {1.0f, 100.0f, 0.0f};
  std::vector<float> ok = {1.0f + 1.9e-4f, 100.0f - 0.01f, 0.9e-4f};  // within 1e-4 + 1e-4·|r|
  EXPECT_TRUE(compare_buffers(DType::f32, ok.data(), expected.data(), 3, 1e-4, 1e-4).ok());
  std::vector<float> bad = {1.0f, 100.0f, 2e-4f};
  auto s = compare_buffers(DType::f32, bad.data(), expected.data(), 3, 1e-4, 1e-4);
  EXPECT_EQ(s.bad, 1);
  EXPECT_EQ(s.first_bad, 2);
}

TEST(Compare, NonFiniteOnlyWhereTheReferenceHasTheSame) {
  const float nan = std::numeric_limits<float>::quiet_NaN(),
              inf = std::numeric_limits<float>::infinity();
  std::vector<float> expected = {nan, inf, -inf, 1.0f};
  std::vector<float> same = {nan, inf, -inf, 1.0f};
  EXPECT_TRUE(compare_buffers(DType::f32, same.data(), expected.data(), 4, 0, 0).ok());
  std::vector<float> wrong = {1.0f, -inf, inf, nan};
  auto s = compare_buffers(DType::f32, wrong.data(), expected.data(), 4, 1, 1);
  EXPECT_EQ(s.bad, 4);
  EXPECT_EQ(s.nan_actual, 1);
}

TEST(Compare, IntegersMustMatchExactly) {
  std::vector<std::int32_t> e = {1, 2, 3}, a = {1, 2, 4};
  EXPECT_EQ(compare_buffers(DType::i32, a.data(), e.data(), 3, 0.5, 10).bad, 1);
}

TEST(Compare, BadExtentGivesTheRangePerDimension) {
  std::vector<float> e(4 * 5, 0.0f), a(4 * 5, 0.0f);
  a[1 * 5 + 2] = 1;
  a[3 * 5 + 4] = 1;
  auto x = bad_extent(DType::f32, a.data(), e.data(), {4, 5}, 0, 0);
  EXPECT_EQ(x.lo, (std::vector<std::int64_t>{1, 2}));
  EXPECT_EQ(x.hi, (std::vector<std::int64_t>{3, 4}));
}

}  // namespace kforge::core
