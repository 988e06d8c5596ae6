// The run page's JSON and graph name a run's nodes by their numbers within the run, as every
// command does: a second run in the store still starts at node 1, its parent and best references
// read the same way, and the graph's SVG names (which the page maps clicks by) agree.
#include "kforge/web/run_view.h"

#include <gmock/gmock.h>
#include <unistd.h>

#include "kforge/modes/run_graph.h"
#include "kforge/store/sessions.h"
#include "kforge/store/store.h"

namespace kforge::web {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(RunView, NodesAreNumberedWithinTheirRun) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("kforge-run-view-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  auto db = store::open_store(store::store_path(dir));
  ASSERT_TRUE(db) << db.error().message;
  auto& d = **db;
  store::RunRecord first{"20260101-000000-aaaa", "search", "12p_rmsnorm", "ci",
                         store::RunState::finished};
  store::RunRecord second{"20260101-000100-bbbb", "search", "12p_rmsnorm", "ci",
                          store::RunState::finished};
  for (const auto* run : {&first, &second}) {
    ASSERT_TRUE(store::insert_session(d, {run->id, "2026-01-01T00:00:00Z", "test", "/"}));
    ASSERT_TRUE(store::insert_run(d, *run));
  }
  // The first run's three nodes take store ids 1 to 3; the second's are 4 and 5.
  for (int k = 0; k < 3; ++k) {
    store::NodeRecord n;
    n.run_id = first.id;
    ASSERT_TRUE(store::insert_node(d, n));
  }
  store::NodeRecord root;
  root.run_id = second.id;
  root.strategy = root.strategy_id = "root";
  root.source = "extern \"C\" void kernel(float* y) { y[0] = 0; }\n";
  auto root_id = store::insert_node(d, root);
  ASSERT_TRUE(root_id);
  store::NodeRecord child = root;
  child.parent_id = *root_id;
  child.depth = 1;
  child.strategy = child.strategy_id = "go_fast";
  child.source = "extern \"C\" void kernel(float* y) { y[0] = 1; }\n";
  auto child_id = store::insert_node(d, child);
  ASSERT_TRUE(child_id);
  ASSERT_EQ(*child_id, 5);
  second.best_node = *child_id;
  ASSERT_TRUE(store::update_run(d, second));

  auto view = run_view(d, second.id, dir);
  ASSERT_TRUE(view) << view.error().message;
  const auto& j = *view;
  ASSERT_EQ(j["nodes"].size(), 2u);
  EXPECT_EQ(j["nodes"][0]["id"], 1);
  EXPECT_EQ(j["nodes"][0]["global_id"], *root_id);
  EXPECT_TRUE(j["nodes"][0]["parent"].is_null());
  EXPECT_EQ(j["nodes"][1]["id"], 2);
  EXPECT_EQ(j["nodes"][1]["global_id"], 5);
  EXPECT_EQ(j["nodes"][1]["parent"], 1);
  EXPECT_EQ(j["run"]["best_node"], 2);
  EXPECT_THAT(j["nodes"][1]["diff"].get<std::string>(), HasSubstr("node 1"));
  EXPECT_EQ(j["graph"]["best"], 2);
  EXPECT_EQ(j["graph"]["nodes"][1]["id"], 2);
  EXPECT_EQ(j["graph"]["nodes"][1]["parent"], 1);
  EXPECT_EQ(j["graph"]["nodes"][1]["global_id"], 5);

  // The picture the page clicks through: Graphviz's names and the small print are the numbers.
  auto nodes = store::nodes_of_run(d, second.id);
  ASSERT_TRUE(nodes);
  auto dot = modes::run_graph_dot(second, *nodes);
  EXPECT_THAT(dot, HasSubstr("n1 -> n2"));
  EXPECT_THAT(dot, HasSubstr("node 2</font>"));
  EXPECT_THAT(dot, Not(HasSubstr("n5")));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace kforge::web
