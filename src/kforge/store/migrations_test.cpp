// Migrations: a fresh store reaches the latest version with every table; opening again runs
// nothing; a store written before a migration opens and keeps its rows; a database from a newer
// kforge is refused; versions are ordered with no gaps.
#include "kforge/store/migrations.h"

#include <gtest/gtest.h>

#include <mutex>
#include <thread>

#include <nlohmann/json.hpp>

#include "kforge/store/store.h"
#include "kforge/store/store_test_util.h"

namespace kforge::store {

TEST(Migrations, VersionsAreOrderedWithoutGaps) {
  int expected = 1;
  for (const auto& m : migrations()) EXPECT_EQ(m.version, expected++) << m.name;
}

TEST(Migrations, FreshStoreReachesTheLatestVersion) {
  TempDir dir;
  auto db = open_store(store_path(dir.path()));
  ASSERT_TRUE(db) << db.error().message;
  auto v = schema_version(**db);
  ASSERT_TRUE(v);
  EXPECT_EQ(*v, migrations().back().version);
  for (const char* table : {"sessions", "llm_calls", "llm_cache"}) {
    auto st =
        (*db)->prepare("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?");
    ASSERT_TRUE(st);
    st->bind(1, table);
    ASSERT_TRUE(*st->step());
    EXPECT_EQ(st->int64(0), 1) << table;
  }
}

TEST(Migrations, ReopeningKeepsTheData) {
  TempDir dir;
  auto path = store_path(dir.path());
  {
    auto db = open_store(path);
    ASSERT_TRUE(db);
    ASSERT_TRUE(insert_session(**db, {"s1", "2025-01-01T00:00:00Z", "kforge test", "/"}));
  }
  auto db = open_store(path);
  ASSERT_TRUE(db) << db.error().message;
  auto s = find_session(**db, "s1");
  ASSERT_TRUE(s);
  ASSERT_TRUE(s->has_value());
  EXPECT_EQ((*s)->command, "kforge test");
}

// A store of version 3 (before calls could be marked estimated) opens; its calls read as counted
// by their provider.
TEST(Migrations, StoreFromBeforeEstimatedTokensOpens) {
  TempDir dir;
  auto path = store_path(dir.path());
  {
    auto db = Database::open(path);
    ASSERT_TRUE(db);
    for (const auto& m : migrations()) {
      if (m.version <= 3) {
        ASSERT_TRUE((*db)->exec(m.sql)) << m.name;
      }
    }
    ASSERT_TRUE((*db)->exec("PRAGMA user_version = 3"));
    ASSERT_TRUE((*db)->exec(
        "INSERT INTO sessions (id, started_at) VALUES ('s', '2025-01-01T00:00:00Z');"
        "INSERT INTO llm_calls (session_id, call, time, role, provider, model, input_tokens, "
        "output_tokens) "
        "VALUES ('s', 1, '2025-01-01T00:00:01Z', 'planner', 'openai', 'gpt-4o', 100, 10);"));
  }
  auto db = open_store(path);
  ASSERT_TRUE(db) << db.error().message;
  EXPECT_EQ(*schema_version(**db), migrations().back().version);
  auto rows = llm_usage(**db, "s");
  ASSERT_TRUE(rows) << rows.error().message;
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ((*rows)[0].input_tokens, 100);
  EXPECT_FALSE((*rows)[0].estimated);
}

// A store of version 4 kept a search's data as keys of the JSON column `extra`; it opens with them
// in typed columns, and a row whose `extra` is not JSON opens too, with the columns empty.
TEST(Migrations, SearchNodesFromBeforeTypedColumnsOpen) {
  TempDir dir;
  auto path = store_path(dir.path());
  {
    auto db = Database::open(path);
    ASSERT_TRUE(db);
    for (const auto& m : migrations()) {
      if (m.version <= 4) {
        ASSERT_TRUE((*db)->exec(m.sql)) << m.name;
      }
    }
    ASSERT_TRUE((*db)->exec("PRAGMA user_version = 4"));
    ASSERT_TRUE((*db)->exec(R"sql(
INSERT INTO sessions (id, started_at) VALUES ('s', '2025-01-01T00:00:00Z');
INSERT INTO runs (id, mode, task, size, state, created_at, updated_at) VALUES ('s', 'search', '12p_rmsnorm', 'ci', 'finished', 'x', 'x');
INSERT INTO nodes (id, run_id, depth, strategy, state, extra, created_at) VALUES (1, 's', 0, 'root', 'done', '{"strategy_id":"root"}', 'x');
INSERT INTO nodes (id, run_id, parent_id, depth, strategy, state, verdict, median_ms, extra, created_at) VALUES (2, 's', 1, 1, 'vectorize', 'done',
  'correct', 1.5, '{"expansion":"beam/d1/n1/go_fast","strategy_id":"go_fast","expansion_result":true,"fixes":1,"timing_window":[10.5,11.25],
  "vs_parent":{"method":"paired","winner":"challenger","ratio":{"median":1.8,"ci95":[1.7,1.9]}},"vs_best":{"method":"first correct kernel"}}', 'x');
INSERT INTO nodes (id, run_id, parent_id, depth, strategy, state, extra, created_at) VALUES (3, 's', 1, 1, 'x', 'interrupted', 'not json', 'x');
)sql"));
  }
  auto db = open_store(path);
  ASSERT_TRUE(db) << db.error().message;
  EXPECT_EQ(*schema_version(**db), migrations().back().version);
  auto nodes = nodes_of_run(**db, "s");
  ASSERT_TRUE(nodes) << nodes.error().message;
  ASSERT_EQ(nodes->size(), 3u);
  EXPECT_EQ((*nodes)[0].strategy_id, "root");
  const auto& n = (*nodes)[1];
  EXPECT_EQ(n.expansion, "beam/d1/n1/go_fast");
  EXPECT_EQ(n.strategy_id, "go_fast");
  EXPECT_TRUE(n.expansion_result);
  EXPECT_EQ(n.vs_parent_ratio, 1.8);
  EXPECT_EQ(nlohmann::json::parse(n.vs_parent)["winner"], "challenger");
  EXPECT_EQ(nlohmann::json::parse(n.vs_best)["method"], "first correct kernel");
  EXPECT_EQ(n.timing_start, 10.5);
  EXPECT_EQ(n.timing_end, 11.25);
  EXPECT_EQ(n.state, NodeState::done);
  // What moved to columns left `extra`; what did not stays.
  EXPECT_EQ(nlohmann::json::parse(n.extra), (nlohmann::json{{"fixes", 1}}));
  EXPECT_EQ((*nodes)[2].state, NodeState::interrupted);
  EXPECT_EQ((*nodes)[2].extra, "not json");
  EXPECT_TRUE((*nodes)[2].strategy_id.empty());
}

// Rows round-trip through every typed column; a state this kforge does not know is an error that
// names the row, not a silent default.
TEST(Migrations, NodesRoundTripAndUnknownStatesAreRefused) {
  TempDir dir;
  auto db = open_store(store_path(dir.path()));
  ASSERT_TRUE(db);
  ASSERT_TRUE(insert_session(**db, {"s", "2025-01-01T00:00:00Z", "kforge search", "/"}));
  ASSERT_TRUE(insert_run(**db, {"s", "search", "12p_rmsnorm", "ci"}));
  NodeRecord n;
  n.run_id = "s";
  auto partner = insert_node(**db, n);  // a crossover's second parent is a node of the store
  ASSERT_TRUE(partner) << partner.error().message;
  n.state = NodeState::running;
  n.roofline = 1.4;
  n.roofline_reason = "the working set fits in L2";
  n.partner = *partner;
  n.vs_parent_ratio = 0.9;
  n.decision = R"({"winner":"tie"})";
  auto id = insert_node(**db, n);
  ASSERT_TRUE(id) << id.error().message;
  n.id = *id;
  n.state = NodeState::done;
  ASSERT_TRUE(update_node(**db, n));
  auto back = nodes_of_run(**db, "s");
  ASSERT_TRUE(back);
  ASSERT_EQ(back->size(), 2u);
  EXPECT_EQ((*back)[0].state, NodeState::pending);
  EXPECT_EQ((*back)[1].state, NodeState::done);
  EXPECT_EQ((*back)[1].roofline_reason, "the working set fits in L2");
  EXPECT_EQ((*back)[1].partner, *partner);
  EXPECT_EQ((*back)[1].vs_parent_ratio, 0.9);
  EXPECT_EQ((*back)[1].decision, R"({"winner":"tie"})");
  n.id = 999;
  auto missing = update_node(**db, n);
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("node 999"), std::string::npos) << missing.error().message;

  ASSERT_TRUE((*db)->exec("UPDATE nodes SET state = 'exploded'"));
  auto bad = nodes_of_run(**db, "s");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("unknown state 'exploded'"), std::string::npos)
      << bad.error().message;
  ASSERT_TRUE((*db)->exec("UPDATE runs SET state = 'paused'"));
  auto run = find_run(**db, "s");
  ASSERT_FALSE(run);
  EXPECT_NE(run.error().message.find("run s: unknown state 'paused'"), std::string::npos)
      << run.error().message;
}

TEST(Migrations, NewerDatabaseIsRefused) {
  TempDir dir;
  auto path = store_path(dir.path());
  {
    auto db = Database::open(path);
    ASSERT_TRUE(db);
    ASSERT_TRUE((*db)->exec("PRAGMA user_version = 999"));
  }
  auto db = open_store(path);
  ASSERT_FALSE(db);
  EXPECT_NE(db.error().message.find("newer"), std::string::npos) << db.error().message;
  EXPECT_NE(db.error().message.find(path.string()), std::string::npos);
}

TEST(Migrations, ConcurrentOpenersMigrateOnce) {
  TempDir dir;
  auto path = store_path(dir.path());
  std::vector<std::thread> threads;
  std::mutex mutex;
  std::vector<std::string> failures;
  for (int i = 0; i < 4; ++i)
    threads.emplace_back([&] {
      auto db = open_store(path);
      if (db) return;
      std::lock_guard lock(mutex);
      failures.push_back(db.error().message);
    });
  for (auto& t : threads) t.join();
  EXPECT_TRUE(failures.empty()) << failures.front();
  auto db = open_store(path);
  ASSERT_TRUE(db);
  EXPECT_EQ(*schema_version(**db), migrations().back().version);
}

}  // namespace kforge::store
