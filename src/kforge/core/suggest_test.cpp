// "Did you mean": typos and partial ids find the intended name; unrelated words find nothing.
#include "kforge/core/suggest.h"

#include <gtest/gtest.h>

namespace kforge::core {
namespace {

const std::vector<std::string> kTasks = {"8p_gemm", "12p_rmsnorm", "13p_layernorm", "20p_softmax"};

TEST(Suggest, EditDistance) {
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("defualt", "default"), 2u);
  EXPECT_EQ(edit_distance("same", "same"), 0u);
}

TEST(Suggest, ClosestName) {
  EXPECT_EQ(closest_name("rmsnorm", kTasks), "12p_rmsnorm");      // the id without its number
  EXPECT_EQ(closest_name("12p_rmsnrom", kTasks), "12p_rmsnorm");  // a typo
  EXPECT_EQ(closest_name("norm", kTasks), "12p_rmsnorm");         // contained in two: the nearer
  EXPECT_EQ(closest_name("defualt", {"default", "planner", "coder"}), "default");
  EXPECT_FALSE(closest_name("foo", kTasks).has_value());
  EXPECT_FALSE(closest_name("", kTasks).has_value());
  EXPECT_FALSE(closest_name("x", {}).has_value());
}

TEST(Suggest, DidYouMean) {
  EXPECT_EQ(did_you_mean("cpuu", {"ci", "cpu", "full"}), "; did you mean 'cpu'?");
  EXPECT_EQ(did_you_mean("small", {"ci", "cpu", "full"}), "");
}

}  // namespace
}  // namespace kforge::core
