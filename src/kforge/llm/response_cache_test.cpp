// The response-cache key changes with everything that shapes a reply (model spec, each
// message's role and text, their boundaries, temperature, max_tokens) and not with the agent
// role; a cached reply survives the store round trip.
#include "kforge/llm/response_cache.h"

#include <gtest/gtest.h>

#include "kforge/llm/llm_test_util.h"
#include "kforge/store/store.h"

namespace kforge::llm {
namespace {

ChatRequest base() {
  ChatRequest r;
  r.agent_role = "coder";
  r.messages = {{"system", "ab"}, {"user", "c"}};
  return r;
}

TEST(CacheKey, ChangesWithWhatShapesTheReply) {
  std::string k = cache_key("openai:gpt-4o", base());
  EXPECT_EQ(k.size(), 32u);
  EXPECT_EQ(k, cache_key("openai:gpt-4o", base()));
  EXPECT_NE(k, cache_key("openai:gpt-4o-mini", base()));
  EXPECT_NE(k, cache_key("openai-compatible:gpt-4o@http://a", base()));
  auto r = base();
  r.messages = {{"system", "a"}, {"user", "bc"}};  // same characters, other boundary
  EXPECT_NE(k, cache_key("openai:gpt-4o", r));
  r = base();
  r.messages[1].role = "assistant";
  EXPECT_NE(k, cache_key("openai:gpt-4o", r));
  r = base();
  r.temperature = 0.7;
  EXPECT_NE(k, cache_key("openai:gpt-4o", r));
  r = base();
  r.max_tokens = 100;
  EXPECT_NE(k, cache_key("openai:gpt-4o", r));
  r = base();
  r.messages.push_back({"user", ""});
  EXPECT_NE(k, cache_key("openai:gpt-4o", r));
  r = base();
  r.agent_role = "planner";
  EXPECT_EQ(k, cache_key("openai:gpt-4o", r));
}

TEST(CacheStore, RoundTrip) {
  testing::TempDir dir;
  auto db = store::open_store(dir.path() / "k.db");
  ASSERT_TRUE(db);
  ChatReply reply;
  reply.text = "int main() {}\n";
  reply.reasoning = "easy";
  reply.finish_reason = "stop";
  reply.provider = "openai";
  reply.model = "gpt-4o";
  reply.usage = {10, 20, 3, 4};
  ASSERT_TRUE(put_cached(**db, "k1", reply));
  auto hit = find_cached(**db, "k1");
  ASSERT_TRUE(hit);
  ASSERT_TRUE(hit->has_value());
  EXPECT_EQ((*hit)->text, reply.text);
  EXPECT_EQ((*hit)->reasoning, "easy");
  EXPECT_EQ((*hit)->usage.output_tokens, 20);
  EXPECT_EQ((*hit)->usage.reasoning_tokens, 4);
  auto miss = find_cached(**db, "k2");
  ASSERT_TRUE(miss);
  EXPECT_FALSE(miss->has_value());
}

}  // namespace
}  // namespace kforge::llm
