// Database: opening creates the file and folder in WAL mode; statements bind and read every
// type; failures are values whose message names the database file.
#include "kforge/store/database.h"

#include <gtest/gtest.h>

#include "kforge/store/store_test_util.h"

namespace kforge::store {

TEST(Database, OpensInWalModeCreatingTheFolder) {
  TempDir dir;
  auto db = Database::open(dir.path() / "deep" / "k.db");
  ASSERT_TRUE(db) << db.error().message;
  auto st = (*db)->prepare("PRAGMA journal_mode");
  ASSERT_TRUE(st);
  ASSERT_TRUE(*st->step());
  EXPECT_EQ(st->text(0), "wal");
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "deep" / "k.db"));
}

TEST(Database, BindsAndReadsEveryType) {
  TempDir dir;
  auto db = Database::open(dir.path() / "k.db");
  ASSERT_TRUE(db);
  ASSERT_TRUE((*db)->exec("CREATE TABLE t (s TEXT, i INTEGER, r REAL, n TEXT)"));
  auto ins = (*db)->prepare("INSERT INTO t VALUES (?, ?, ?, ?)");
  ASSERT_TRUE(ins);
  ins->bind(1, std::string("it's \"quoted\"\n"))
      .bind(2, std::int64_t{1} << 40)
      .bind(3, 2.5)
      .bind_null(4);
  ASSERT_TRUE(ins->run());
  EXPECT_EQ((*db)->last_insert_rowid(), 1);
  auto sel = (*db)->prepare("SELECT s, i, r, n FROM t");
  ASSERT_TRUE(sel);
  ASSERT_TRUE(*sel->step());
  EXPECT_EQ(sel->text(0), "it's \"quoted\"\n");
  EXPECT_EQ(sel->int64(1), std::int64_t{1} << 40);
  EXPECT_DOUBLE_EQ(sel->real(2), 2.5);
  EXPECT_TRUE(sel->is_null(3));
  EXPECT_FALSE(*sel->step());
}

TEST(Database, ErrorsNameTheFile) {
  TempDir dir;
  auto path = dir.path() / "k.db";
  auto db = Database::open(path);
  ASSERT_TRUE(db);
  auto bad = (*db)->prepare("SELECT * FROM no_such_table");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find(path.string()), std::string::npos) << bad.error().message;
  EXPECT_NE(bad.error().message.find("no such table"), std::string::npos) << bad.error().message;
  auto exec = (*db)->exec("CREATE TABLE");
  ASSERT_FALSE(exec);
  EXPECT_NE(exec.error().message.find(path.string()), std::string::npos);
}

TEST(Database, ConstraintViolationsAreErrors) {
  TempDir dir;
  auto db = Database::open(dir.path() / "k.db");
  ASSERT_TRUE(db);
  ASSERT_TRUE((*db)->exec("CREATE TABLE t (k TEXT PRIMARY KEY)"));
  auto ins = (*db)->prepare("INSERT INTO t VALUES (?)");
  ASSERT_TRUE(ins);
  ASSERT_TRUE(ins->bind(1, "a").run());
  auto again = ins->bind(1, "a").run();
  ASSERT_FALSE(again);
  EXPECT_NE(again.error().message.find("UNIQUE"), std::string::npos) << again.error().message;
}

TEST(Database, UnopenablePathIsAnError) {
  auto db = Database::open("/proc/kforge-cannot/k.db");
  ASSERT_FALSE(db);
  EXPECT_NE(db.error().message.find("/proc/kforge-cannot"), std::string::npos)
      << db.error().message;
}

}  // namespace kforge::store
