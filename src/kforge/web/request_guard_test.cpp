// The request checks alone: loopback needs a loopback Host of this port; state changes need the
// server's own Origin (or none) and JSON; a server bound elsewhere needs the token on everything.
#include "kforge/web/request_guard.h"

#include <gtest/gtest.h>

namespace kforge::web {
namespace {

GuardConfig loopback() { return {true, 8765, ""}; }
GuardConfig remote() { return {false, 8765, "0123456789abcdef0123456789abcdef"}; }

}  // namespace

TEST(RequestGuard, LoopbackNeedsALoopbackHostOfThisPort) {
  EXPECT_FALSE(check_request(loopback(), {"GET", "127.0.0.1:8765", "", "", ""}));
  EXPECT_FALSE(check_request(loopback(), {"GET", "localhost:8765", "", "", ""}));
  EXPECT_FALSE(check_request(loopback(), {"GET", "[::1]:8765", "", "", ""}));
  // DNS rebinding: another site's name resolved to 127.0.0.1.
  auto r = check_request(loopback(), {"GET", "evil.example:8765", "", "", ""});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 403);
  EXPECT_TRUE(check_request(loopback(), {"GET", "127.0.0.1:9999", "", "", ""}));
  EXPECT_TRUE(check_request(loopback(), {"GET", "", "", "", ""}));
}

TEST(RequestGuard, StateChangesNeedTheOwnOriginAndJson) {
  RequestFacts post{"POST", "127.0.0.1:8765", "http://127.0.0.1:8765", "application/json", ""};
  EXPECT_FALSE(check_request(loopback(), post));
  post.origin = "";  // curl, the tests: no Origin at all
  EXPECT_FALSE(check_request(loopback(), post));
  post.origin = "http://evil.example";
  auto r = check_request(loopback(), post);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 403);
  post.origin = "null";  // a sandboxed frame or a file: page
  EXPECT_TRUE(check_request(loopback(), post));
  // A form of another site can post text/plain or a form encoding without a preflight: refused.
  post.origin = "";
  post.content_type = "text/plain";
  r = check_request(loopback(), post);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 415);
  post.content_type = "application/x-www-form-urlencoded";
  EXPECT_TRUE(check_request(loopback(), post));
}

TEST(RequestGuard, ARemoteBindNeedsTheTokenOnEveryRequest) {
  auto g = remote();
  auto r = check_request(g, {"GET", "10.0.0.5:8765", "", "", ""});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 401);
  EXPECT_TRUE(
      check_request(g, {"GET", "10.0.0.5:8765", "", "", "0123456789abcdef0123456789abcdee"}));
  EXPECT_TRUE(check_request(g, {"GET", "10.0.0.5:8765", "", "", "0123456789abcdef"}));
  EXPECT_FALSE(check_request(g, {"GET", "10.0.0.5:8765", "", "", g.token}));
  // Even with the token, another origin may not change state.
  EXPECT_TRUE(check_request(
      g, {"POST", "10.0.0.5:8765", "http://evil.example", "application/json", g.token}));
}

TEST(RequestGuard, TokensCompareWhole) {
  EXPECT_TRUE(constant_time_equal("abc", "abc"));
  EXPECT_FALSE(constant_time_equal("abc", "abd"));
  EXPECT_FALSE(constant_time_equal("abc", "abcabc"));
  EXPECT_FALSE(constant_time_equal("", "abc"));
  EXPECT_FALSE(constant_time_equal("abc", ""));
  auto a = random_token(), b = random_token();
  EXPECT_EQ(a.size(), 32u);
  EXPECT_NE(a, b);
}

TEST(RequestGuard, IdsCannotNameAnotherFolder) {
  EXPECT_TRUE(is_safe_id("20261202-003049-1a2b"));
  EXPECT_FALSE(is_safe_id("../etc"));
  EXPECT_FALSE(is_safe_id("a/b"));
  EXPECT_FALSE(is_safe_id(".."));
  EXPECT_FALSE(is_safe_id(""));
}

}  // namespace kforge::web
