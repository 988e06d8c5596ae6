// The budget: no limit never stops; a dollar or token limit stops the next call once reached,
// with a message naming the flag; charges from many threads add up.
#include "kforge/llm/budget.h"

#include <gtest/gtest.h>

#include <thread>

namespace kforge::llm {
namespace {

TEST(Budget, UnlimitedNeverStops) {
  Budget b;
  b.charge(1e6, 1'000'000'000);
  EXPECT_TRUE(b.check());
}

TEST(Budget, DollarLimitStopsOnceReached) {
  Budget b({.max_usd = 1.0});
  b.charge(0.6, 100);
  EXPECT_TRUE(b.check());
  b.charge(0.4, 100);
  auto s = b.check();
  ASSERT_FALSE(s);
  EXPECT_EQ(s.kind(), ErrorKind::budget_exhausted);
  EXPECT_EQ(s.error().message,
            "budget exhausted: $1.0000 spent of the $1.00 allowed (--max-usd); stopping before the "
            "next model call");
}

TEST(Budget, TokenLimitStopsOnceReached) {
  Budget b({.max_tokens = 1000});
  b.charge(0, 999);
  EXPECT_TRUE(b.check());
  b.charge(0, 1);
  auto s = b.check();
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("--max-tokens"), std::string::npos);
}

TEST(Budget, ConcurrentChargesAddUp) {
  Budget b;
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 1000; ++i) b.charge(0.001, 3);
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(b.spent_tokens(), 24000);
  EXPECT_NEAR(b.spent_usd(), 8.0, 1e-9);
}

}  // namespace
}  // namespace kforge::llm
