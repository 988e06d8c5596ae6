// Node numbers: two runs in one store, their nodes interleaved as two searches at once would write
// them, each number from 1 in the order written; a number leads back to its id and an id to its
// number, and nothing leads across runs.
#include "kforge/store/runs.h"

#include <gtest/gtest.h>

#include "kforge/store/sessions.h"
#include "kforge/store/store.h"
#include "kforge/store/store_test_util.h"

namespace kforge::store {
namespace {

class NodeNumbersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = open_store(store_path(dir_.path()));
    ASSERT_TRUE(opened) << opened.error().message;
    db_ = std::move(*opened);
    for (const char* run : {"first", "second"}) {
      ASSERT_TRUE(insert_session(*db_, {run, "2025-01-01T00:00:00Z", "kforge search", "/"}));
      ASSERT_TRUE(insert_run(*db_, {run, "search", "12p_rmsnorm", "ci"}));
    }
  }

  std::int64_t add(const std::string& run) {
    NodeRecord n;
    n.run_id = run;
    auto id = insert_node(*db_, n);
    EXPECT_TRUE(id) << id.error().message;
    return id ? *id : 0;
  }

  TempDir dir_;
  std::unique_ptr<Database> db_;
};

TEST_F(NodeNumbersTest, EachRunNumbersItsNodesFromOne) {
  // first: ids 1, 2, 4; second: ids 3, 5, 6.
  std::vector<std::int64_t> first = {add("first"), add("first")};
  std::vector<std::int64_t> second = {add("second")};
  first.push_back(add("first"));
  second.push_back(add("second"));
  second.push_back(add("second"));
  ASSERT_GT(second.front(), first.front());  // the second run's ids do not start at 1

  for (const auto& [run, ids] : {std::pair{"first", first}, std::pair{"second", second}}) {
    auto nodes = nodes_of_run(*db_, run);
    ASSERT_TRUE(nodes) << nodes.error().message;
    ASSERT_EQ(nodes->size(), 3u);
    NodeNumbers numbers(*nodes);
    for (int k = 0; k < 3; ++k) {
      const int number = k + 1;
      EXPECT_EQ((*nodes)[k].id, ids[k]) << run;
      EXPECT_EQ((*nodes)[k].number, number) << run;
      // The round trip, both ways, through the store.
      auto id = node_id(*db_, run, number);
      ASSERT_TRUE(id) << id.error().message;
      EXPECT_EQ(*id, ids[k]) << run << " node " << number;
      auto back = node_number(*db_, run, ids[k]);
      ASSERT_TRUE(back) << back.error().message;
      EXPECT_EQ(*back, number) << run << " id " << ids[k];
      EXPECT_EQ(numbers.of(ids[k]), number);
    }
    // Past the end and before the start: no node.
    EXPECT_EQ(node_id(*db_, run, 4).value(), std::nullopt);
    EXPECT_EQ(node_id(*db_, run, 0).value(), std::nullopt);
    EXPECT_EQ(numbers.of(std::nullopt), std::nullopt);
  }
  // Another run's node has no number in this one, whichever way it is asked.
  EXPECT_EQ(node_number(*db_, "first", second.front()).value(), std::nullopt);
  EXPECT_EQ(NodeNumbers(nodes_of_run(*db_, "first").value()).of(second.front()), std::nullopt);
  EXPECT_EQ(node_number(*db_, "no such run", first.front()).value(), std::nullopt);
}

}  // namespace
}  // namespace kforge::store
