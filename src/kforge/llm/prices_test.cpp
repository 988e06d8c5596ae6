// The price table: defaults cover the common models of each provider; dated snapshots find
// their model's price, other variants do not borrow it; cost arithmetic bills cached input at
// the cached price; overrides replace defaults.
#include "kforge/llm/prices.h"

#include <gtest/gtest.h>

namespace kforge::llm {
namespace {

TEST(Prices, DefaultsCoverCommonModels) {
  auto t = PriceTable::defaults();
  for (auto [provider, model] :
       std::vector<std::pair<const char*, const char*>>{{"openai", "gpt-4o"},
                                                        {"openai", "gpt-4o-mini"},
                                                        {"openai", "gpt-4.1"},
                                                        {"openai", "o3"},
                                                        {"openai", "gpt-5"},
                                                        {"anthropic", "claude-sonnet-4-5"},
                                                        {"anthropic", "claude-opus-4-1"},
                                                        {"anthropic", "claude-3-5-haiku"},
                                                        {"gemini", "gemini-2.5-pro"},
                                                        {"gemini", "gemini-2.5-flash"}}) {
    auto p = t.find(provider, model);
    ASSERT_TRUE(p) << provider << ":" << model;
    EXPECT_GT(p->input, 0);
    EXPECT_GT(p->output, p->input);
    EXPECT_LE(p->cached_input, p->input);
  }
  EXPECT_DOUBLE_EQ(t.find("openai", "gpt-4o")->input, 2.5);
  EXPECT_DOUBLE_EQ(t.find("openai", "gpt-4o")->output, 10.0);
  EXPECT_DOUBLE_EQ(t.find("anthropic", "claude-sonnet-4-5")->output, 15.0);
}

TEST(Prices, SnapshotsFindTheirModel) {
  auto t = PriceTable::defaults();
  EXPECT_DOUBLE_EQ(t.find("openai", "gpt-4o-2024-08-06")->input, 2.5);
  EXPECT_DOUBLE_EQ(t.find("openai", "gpt-4o-mini-2024-07-18")->input, 0.15);
  EXPECT_DOUBLE_EQ(t.find("anthropic", "claude-sonnet-4-5-20250929")->input, 3.0);
  EXPECT_DOUBLE_EQ(t.find("anthropic", "claude-3-5-haiku-latest")->input, 0.8);
  EXPECT_DOUBLE_EQ(t.find("gemini", "gemini-2.0-flash-001")->input, 0.1);
}

TEST(Prices, UnknownModelsAndVariantsAreUnpriced) {
  auto t = PriceTable::defaults();
  EXPECT_FALSE(t.find("openai", "gpt-4o-audio-preview"));
  EXPECT_FALSE(t.find("openai", "my-finetune"));
  EXPECT_FALSE(t.find("openai-compatible", "gpt-4o"));  // a local server is not OpenAI's price list
  EXPECT_FALSE(t.find("anthropic", "gpt-4o"));
}

TEST(Prices, CostBillsCachedInputAtTheCachedPrice) {
  Price p{2.0, 8.0, 0.5};
  Usage u{1'000'000, 500'000, 400'000, 100'000};
  // 600k uncached × 2 + 400k cached × 0.5 + 500k out × 8 (reasoning included) = 1.2 + 0.2 + 4.0
  EXPECT_DOUBLE_EQ(cost_usd(p, u), 5.4);
  EXPECT_DOUBLE_EQ(cost_usd(p, Usage{}), 0.0);
}

TEST(Prices, OverridesReplaceDefaults) {
  auto t = PriceTable::defaults();
  t.set("openai:gpt-4o", {1.0, 2.0, 0.5});
  t.set("openai-compatible:qwen", {0.1, 0.2, 0.1});
  EXPECT_DOUBLE_EQ(t.find("openai", "gpt-4o")->input, 1.0);
  EXPECT_DOUBLE_EQ(t.find("openai", "gpt-4o-2024-11-20")->output, 2.0);
  EXPECT_DOUBLE_EQ(t.find("openai-compatible", "qwen")->input, 0.1);
}

}  // namespace
}  // namespace kforge::llm
