// The node description graph and export share.
#include "kforge/store/node_json.h"

#include <gtest/gtest.h>

namespace kforge::store {
namespace {

TEST(NodeJson, EveryTypedColumnIsShownAndUnmeasuredNumbersAreNull) {
  NodeRecord parent;
  parent.id = 3;
  parent.number = 1;
  NodeRecord n;
  n.id = 7;
  n.number = 2;
  n.run_id = "r";
  n.parent_id = 3;
  n.state = NodeState::done;
  n.verdict = "correct";
  n.median_ms = 1.5;
  n.roofline = 1.2;
  n.roofline_reason = "the working set fits in L2";
  n.vs_parent = R"({"winner":"challenger"})";
  auto j = node_json(n, NodeNumbers({parent, n}));
  // Named as the run numbers them; the store's id kept apart.
  EXPECT_EQ(j["id"], 2);
  EXPECT_EQ(j["global_id"], 7);
  EXPECT_EQ(j["parent"], 1);
  EXPECT_EQ(j["state"], "done");
  EXPECT_EQ(j["roofline_reason"], "the working set fits in L2");
  EXPECT_EQ(j["vs_parent"]["winner"], "challenger");  // an object, not a string of JSON
  EXPECT_TRUE(j["speedup"].is_null());
  EXPECT_TRUE(j["baseline_ms"].is_null());
  EXPECT_TRUE(j["vs_best"].is_null());
  EXPECT_TRUE(j["partner"].is_null());
  EXPECT_FALSE(j.contains("source"));  // the kernel's text is a file of export's, not a field
}

}  // namespace
}  // namespace kforge::store
