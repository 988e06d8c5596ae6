// Migrations: a fresh store reaches the latest version with every table; opening again runs
// nothing; a store written before a migration opens and keeps its rows; a database from a newer
// kforge is refused; versions are ordered with no gaps.
#include "kforge/store/migrations.h"

#include <gtest/gtest.h>

#include <thread>

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
    auto st = (*db)->prepare("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?");
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
    for (const auto& m : migrations())
      if (m.version <= 3) ASSERT_TRUE((*db)->exec(m.sql)) << m.name;
    ASSERT_TRUE((*db)->exec("PRAGMA user_version = 3"));
    ASSERT_TRUE((*db)->exec("INSERT INTO sessions (id, started_at) VALUES ('s', '2025-01-01T00:00:00Z');"
                            "INSERT INTO llm_calls (session_id, call, time, role, provider, model, input_tokens, output_tokens) "
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
  std::atomic<int> failures{0};
  for (int i = 0; i < 4; ++i)
    threads.emplace_back([&] {
      auto db = open_store(path);
      if (!db) ++failures;
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  auto db = open_store(path);
  ASSERT_TRUE(db);
  EXPECT_EQ(*schema_version(**db), migrations().back().version);
}

}  // namespace kforge::store
