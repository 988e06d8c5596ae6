// llm_calls and llm_cache: rows round-trip; usage totals group by session, role and model,
// count failed and cached calls, leave cached calls' tokens and cost out, and flag unpriced
// models and calls whose tokens were estimated; the cache replaces entries under the same key.
#include "kforge/store/llm_calls.h"

#include <gtest/gtest.h>

#include "kforge/store/store.h"
#include "kforge/store/store_test_util.h"

namespace kforge::store {
namespace {

LlmCallRecord call(const std::string& session, int n, const std::string& role,
                   const std::string& model, std::int64_t in, std::int64_t out, double cost) {
  LlmCallRecord c;
  c.session_id = session;
  c.call = n;
  c.time = "2025-01-01T00:00:0" + std::to_string(n) + "Z";
  c.role = role;
  c.provider = "openai";
  c.model = model;
  c.input_tokens = in;
  c.output_tokens = out;
  c.cost_usd = cost;
  c.latency_ms = 100;
  c.finish_reason = "stop";
  return c;
}

}  // namespace

TEST(LlmCalls, UsageGroupsBySessionRoleAndModel) {
  TempDir dir;
  auto db = open_store(store_path(dir.path()));
  ASSERT_TRUE(db);
  ASSERT_TRUE(insert_session(**db, {"old", "2025-01-01T00:00:00Z", "", ""}));
  ASSERT_TRUE(insert_session(**db, {"new", "2025-02-01T00:00:00Z", "", ""}));
  ASSERT_TRUE(insert_llm_call(**db, call("old", 1, "planner", "gpt-4o", 100, 10, 0.5)));
  ASSERT_TRUE(insert_llm_call(**db, call("new", 1, "planner", "gpt-4o", 100, 10, 0.5)));
  ASSERT_TRUE(insert_llm_call(**db, call("new", 2, "planner", "gpt-4o", 200, 20, 1.0)));
  ASSERT_TRUE(insert_llm_call(**db, call("new", 3, "coder", "gpt-4o", 1000, 500, 2.0)));
  auto cached = call("new", 4, "coder", "gpt-4o", 1000, 500, 0.0);
  cached.cached = true;
  ASSERT_TRUE(insert_llm_call(**db, cached));
  auto failed = call("new", 5, "coder", "local", 0, 0, 0.0);
  failed.error_kind = "timeout";
  failed.error = "no reply within 1 s";
  failed.priced = false;
  ASSERT_TRUE(insert_llm_call(**db, failed));

  auto all = llm_usage(**db);
  ASSERT_TRUE(all) << all.error().message;
  ASSERT_EQ(all->size(), 4u);
  EXPECT_EQ((*all)[0].session_id, "new");  // newest session first
  EXPECT_EQ((*all)[0].role, "coder");
  EXPECT_EQ((*all)[0].model, "gpt-4o");
  EXPECT_EQ((*all)[0].calls, 2);
  EXPECT_EQ((*all)[0].cached_calls, 1);
  EXPECT_EQ((*all)[0].input_tokens, 1000);  // the cached call's tokens are not counted
  EXPECT_DOUBLE_EQ((*all)[0].cost_usd, 2.0);
  EXPECT_EQ((*all)[1].model, "local");
  EXPECT_EQ((*all)[1].failed_calls, 1);
  EXPECT_TRUE((*all)[1].unpriced);
  EXPECT_EQ((*all)[2].role, "planner");
  EXPECT_EQ((*all)[2].calls, 2);
  EXPECT_EQ((*all)[2].input_tokens, 300);
  EXPECT_EQ((*all)[3].session_id, "old");

  auto one = llm_usage(**db, "old");
  ASSERT_TRUE(one);
  ASSERT_EQ(one->size(), 1u);
  EXPECT_EQ((*one)[0].calls, 1);
}

TEST(LlmCalls, CallsNeedAKnownSession) {
  TempDir dir;
  auto db = open_store(store_path(dir.path()));
  ASSERT_TRUE(db);
  auto r = insert_llm_call(**db, call("nobody", 1, "planner", "gpt-4o", 1, 1, 0));
  EXPECT_FALSE(r);
}

TEST(LlmCache, PutThenFindAndReplace) {
  TempDir dir;
  auto db = open_store(store_path(dir.path()));
  ASSERT_TRUE(db);
  auto miss = find_cached_reply(**db, "k");
  ASSERT_TRUE(miss);
  EXPECT_FALSE(miss->has_value());
  ASSERT_TRUE(put_cached_reply(**db, "k", "t", R"({"text":"a"})"));
  ASSERT_TRUE(put_cached_reply(**db, "k", "t", R"({"text":"b"})"));
  auto hit = find_cached_reply(**db, "k");
  ASSERT_TRUE(hit);
  ASSERT_TRUE(hit->has_value());
  EXPECT_EQ(**hit, R"({"text":"b"})");
}

TEST(Sessions, ListedNewestFirst) {
  TempDir dir;
  auto db = open_store(store_path(dir.path()));
  ASSERT_TRUE(db);
  ASSERT_TRUE(insert_session(**db, {"a", "2025-01-01T00:00:00Z", "", ""}));
  ASSERT_TRUE(insert_session(**db, {"b", "2025-03-01T00:00:00Z", "", ""}));
  ASSERT_TRUE(insert_session(**db, {"a", "2026-01-01T00:00:00Z", "again", ""}));  // ignored: exists
  auto list = list_sessions(**db);
  ASSERT_TRUE(list);
  ASSERT_EQ(list->size(), 2u);
  EXPECT_EQ((*list)[0].id, "b");
  EXPECT_EQ((*list)[1].started_at, "2025-01-01T00:00:00Z");
}

TEST(LlmCalls, UsageSaysWhenTokensWereEstimated) {
  TempDir dir;
  auto db = open_store(store_path(dir.path()));
  ASSERT_TRUE(db);
  ASSERT_TRUE(insert_session(**db, {"s", "2025-01-01T00:00:00Z", "", ""}));
  auto counted = call("s", 1, "coder", "python3 model.py", 812, 340, 0.0);
  counted.provider = "cmd";
  counted.tokens_estimated = true;
  ASSERT_TRUE(insert_llm_call(**db, counted));
  ASSERT_TRUE(insert_llm_call(**db, call("s", 2, "planner", "gpt-4o", 100, 10, 0.5)));
  auto rows = llm_usage(**db, "s");
  ASSERT_TRUE(rows) << rows.error().message;
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[0].role, "coder");
  EXPECT_TRUE((*rows)[0].estimated);
  EXPECT_EQ((*rows)[0].input_tokens, 812);
  EXPECT_FALSE((*rows)[1].estimated);
}

}  // namespace kforge::store

namespace kforge::store {

TEST(LlmCalls, ASessionsCallsReadBackInOrder) {
  TempDir dir;
  auto db = open_store(store_path(dir.path()));
  ASSERT_TRUE(db);
  ASSERT_TRUE(insert_session(**db, {"s", "2025-01-01T00:00:00Z", "", ""}));
  ASSERT_TRUE(insert_session(**db, {"other", "2025-01-01T00:00:00Z", "", ""}));
  auto failed = call("s", 2, "coder", "gpt-4o", 5, 0, 0);
  failed.error_kind = "timeout";
  failed.error = "no answer in 60 s";
  failed.tokens_estimated = true;
  ASSERT_TRUE(insert_llm_call(**db, failed));
  ASSERT_TRUE(insert_llm_call(**db, call("s", 1, "planner", "gpt-4o", 100, 10, 0.5)));
  ASSERT_TRUE(insert_llm_call(**db, call("other", 1, "planner", "gpt-4o", 1, 1, 1)));
  auto calls = llm_calls_of(**db, "s");
  ASSERT_TRUE(calls) << calls.error().message;
  ASSERT_EQ(calls->size(), 2u);
  EXPECT_EQ((*calls)[0].call, 1);
  EXPECT_EQ((*calls)[0].role, "planner");
  EXPECT_EQ((*calls)[0].input_tokens, 100);
  EXPECT_DOUBLE_EQ((*calls)[0].cost_usd, 0.5);
  EXPECT_EQ((*calls)[0].error_kind, "");
  EXPECT_EQ((*calls)[1].role, "coder");
  EXPECT_EQ((*calls)[1].error_kind, "timeout");
  EXPECT_EQ((*calls)[1].error, "no answer in 60 s");
  EXPECT_TRUE((*calls)[1].tokens_estimated);
}

}  // namespace kforge::store
