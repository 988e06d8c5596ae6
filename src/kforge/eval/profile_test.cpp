// The profile's text: each hot line carries its sample count and the 95% interval of its share,
// so a share drawn from ~60 samples reads as the rough figure it is.
#include "kforge/eval/profile.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kforge::eval {

using ::testing::HasSubstr;

TEST(Profile, ShareIntervalIsWilson) {
  auto [low, high] = share_interval(19, 61);
  EXPECT_NEAR(low, 0.209, 0.005);
  EXPECT_NEAR(high, 0.435, 0.005);
  auto [none_low, none_high] = share_interval(0, 50);
  EXPECT_EQ(none_low, 0);
  EXPECT_GT(none_high, 0.05);  // no samples is not proof of no time
  EXPECT_EQ(share_interval(3, 0), std::make_pair(0.0, 0.0));
}

TEST(Profile, HotLinesCarryTheirSamplesAndInterval) {
  Profile p;
  p.samples = 61;
  p.calls = 12;
  p.object_share = {{"kernel", 0.9}, {"libgomp.so.1", 0.1}};
  p.hot_lines = {{12, 19, 19.0 / 61, "kernel", "    acc += x[i] * x[i];"},
                 {0, 4, 4.0 / 61, "(outside the kernel's source: inlined library code)", ""}};
  std::string s = p.summary();
  EXPECT_THAT(s, HasSubstr("share of all 61 with its 95% interval"));
  EXPECT_THAT(s, HasSubstr("   19   31.1% [21–44%]  line   12: acc += x[i] * x[i];"));
  EXPECT_THAT(s, HasSubstr("    4    6.6% ["));
}

}  // namespace kforge::eval
