// kforge serve's kept-results endpoints over HTTP (the real binary, a store seeded as bench and
// eval write it): the bench results newest first with their summaries and task ids, one result
// read as its bench --json (which the compare endpoint takes as it is), a task's speedup across
// the bench results oldest first (a busy reading has no figure), and 404 for a result not kept.
#include <gmock/gmock.h>

#include "kforge/web/kept_results_test_util.h"
#include "kforge/web/web_test_util.h"

namespace kforge::web {
namespace {

class ServeResultsTest : public ServeScenario {};

nlohmann::json parsed(const std::pair<int, std::string>& reply) {
  EXPECT_EQ(reply.first, 200) << reply.second;
  return nlohmann::json::parse(reply.second, nullptr, false);
}

}  // namespace

TEST_F(ServeResultsTest, KeptResultsListedReadAndFollowedOverTime) {
  seed_kept_results(dir_ / "state");
  ASSERT_FALSE(start_serve().empty()) << serve_->output();

  auto list = parsed(curl("/api/results"));
  ASSERT_TRUE(list.is_array()) << list.dump();
  ASSERT_EQ(list.size(), 2u);  // the bench results, not the eval
  EXPECT_EQ(list[0]["id"], 2);
  EXPECT_EQ(list[1]["id"], 1);
  EXPECT_EQ(list[1]["summary"]["correct"], 2);
  EXPECT_NEAR(list[1]["summary"]["geomean_speedup"].get<double>(), std::sqrt(1.2 * 2.0), 1e-9);
  EXPECT_EQ(list[0]["summary"]["busy"], 1);
  EXPECT_EQ(list[0]["task_ids"], (nlohmann::json{"t", "u"}));
  EXPECT_EQ(list[0]["machine"]["hostname"], "box");
  EXPECT_EQ(parsed(curl("/api/results?command=eval")).size(), 1u);

  auto first = parsed(curl("/api/results/1"));
  auto second = parsed(curl("/api/results/2"));
  ASSERT_EQ(first["tasks"].size(), 2u);
  EXPECT_EQ(first["results"][0]["speedup"], 1.2);
  auto [status, body] = post("/api/bench/compare", {{"a", first}, {"b", second}});
  ASSERT_EQ(status, 200) << body;
  auto compared = nlohmann::json::parse(body);
  EXPECT_EQ(compared["summary"]["b_faster"], 1);  // t: 2.5x against 1.2x, intervals apart
  EXPECT_EQ(compared["summary"]["busy"], 1);      // u: busy in B, not compared
  EXPECT_EQ(curl("/api/results/99").first, 404);

  auto t = parsed(curl("/api/results/history/t"));
  EXPECT_EQ(t["task"], "t");
  ASSERT_EQ(t["points"].size(), 2u);  // the bench results, oldest first
  EXPECT_EQ(t["points"][0]["result"], 1);
  EXPECT_EQ(t["points"][0]["speedup"], 1.2);
  EXPECT_NEAR(t["points"][0]["speedup_ci95"][0].get<double>(), 1.1, 1e-9);
  EXPECT_NEAR(t["points"][0]["speedup_ci95"][1].get<double>(), 1.3, 1e-9);
  EXPECT_EQ(t["points"][1]["result"], 2);
  EXPECT_EQ(t["points"][1]["speedup"], 2.5);
  EXPECT_EQ(t["points"][1]["when"], "2026-01-02T00:00:00Z");
  EXPECT_EQ(t["points"][1]["git_sha"], "0123456789abcdef");
  auto u = parsed(curl("/api/results/history/u"));
  ASSERT_EQ(u["points"].size(), 2u);
  EXPECT_TRUE(u["points"][1]["busy"].get<bool>());
  EXPECT_TRUE(u["points"][1]["speedup"].is_null());
  EXPECT_TRUE(parsed(curl("/api/results/history/nothing"))["points"].empty());
}

}  // namespace kforge::web
