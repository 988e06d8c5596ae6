// Every HTTP provider (openai, anthropic, gemini), against a local server speaking its wire
// format: a plain and a streamed reply parse to the same ChatReply; 429 with Retry-After is
// retried after exactly that wait (capped); 500 twice then success is retried with growing
// back-off; 401 is not retried and names the key's variable, never the key; 400/404 are not
// retried; a malformed body, a stream missing its last event, a connection cut mid-stream and
// a reply cut at max_tokens are reported as malformed/truncated; a reply slower than the
// timeout is a timeout; a refused connection is a network error after the retries; a set
// cancellation flag ends a call in flight promptly.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "kforge/llm/model_client.h"
#include "kforge/llm/provider_fixtures.h"

namespace kforge::llm::testing {
namespace {

class HttpFailures : public ::testing::TestWithParam<Profile> {
 protected:
  std::unique_ptr<ModelClient> client(ClientOptions o) {
    auto spec = parse_model_spec(GetParam().spec);
    EXPECT_TRUE(spec);
    auto c = make_client(*spec, o);
    EXPECT_TRUE(c) << c.error().message;
    return std::move(*c);
  }
  ClientOptions options() {
    return opts.options({{GetParam().key_env, kFakeKey}, {GetParam().base_env, server.url()}});
  }

  TestServer server;
  TestOptions opts;
};

void expect_hello(const ChatReply& r, const Profile& p) {
  EXPECT_EQ(r.text, "Hello, world");
  EXPECT_EQ(r.reasoning, p.reasoning);
  EXPECT_EQ(r.finish_reason, "stop");
  EXPECT_EQ(r.provider, p.name);
  EXPECT_EQ(r.model, p.model);
  EXPECT_EQ(r.usage.input_tokens, p.usage.input_tokens);
  EXPECT_EQ(r.usage.output_tokens, p.usage.output_tokens);
  EXPECT_EQ(r.usage.cached_tokens, p.usage.cached_tokens);
  EXPECT_EQ(r.usage.reasoning_tokens, p.usage.reasoning_tokens);
  EXPECT_GT(r.latency_ms, 0);
}

TEST_P(HttpFailures, PlainAndStreamedRepliesAreTheSame) {
  const Profile& p = GetParam();
  server.script({status(200, p.ok_body), sse(p.ok_stream)});
  auto c = client(options());
  auto plain = c->complete(hello_request());
  ASSERT_TRUE(plain) << plain.error().message;
  expect_hello(*plain, p);

  std::string text, reasoning;
  std::vector<std::string> pieces;
  StreamCallback cb = [&](const StreamDelta& d) {
    text += d.text;
    reasoning += d.reasoning;
    if (!d.text.empty()) pieces.emplace_back(d.text);
  };
  auto streamed = c->complete(hello_request(), &cb);
  ASSERT_TRUE(streamed) << streamed.error().message;
  expect_hello(*streamed, p);
  EXPECT_EQ(text, "Hello, world");
  EXPECT_EQ(reasoning, p.reasoning);
  EXPECT_EQ(pieces,
            (std::vector<std::string>{"Hello", ", world"}));  // as written, not all at the end
  auto got = server.received();
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].path, p.path);
  EXPECT_EQ(got[1].target, p.stream_target);
}

TEST_P(HttpFailures, RateLimitedThenSuccessWaitsForRetryAfter) {
  server.script({status(429, R"({"error": {"message": "slow down"}})", {{"Retry-After", "7"}}),
                 status(200, GetParam().ok_body)});
  auto r = client(options())->complete(hello_request());
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->text, "Hello, world");
  EXPECT_EQ(server.received().size(), 2u);
  EXPECT_EQ(opts.sleeps, std::vector<double>{7.0});
}

TEST_P(HttpFailures, RetryAfterIsCapped) {
  server.script({status(429, "", {{"Retry-After", "86400"}}), status(200, GetParam().ok_body)});
  auto o = options();
  o.retry.retry_after_cap_s = 45;
  auto r = client(o)->complete(hello_request());
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(opts.sleeps, std::vector<double>{45.0});
}

TEST_P(HttpFailures, ServerErrorTwiceThenSuccess) {
  server.script({status(500, R"({"error": {"message": "boom"}})"),
                 status(503, "upstream overloaded"), status(200, GetParam().ok_body)});
  auto r = client(options())->complete(hello_request());
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(server.received().size(), 3u);
  ASSERT_EQ(opts.sleeps.size(), 2u);
  // Exponential with jitter: 1 s × [0.5, 1], then 2 s × [0.5, 1].
  EXPECT_GE(opts.sleeps[0], 0.5);
  EXPECT_LE(opts.sleeps[0], 1.0);
  EXPECT_GE(opts.sleeps[1], 1.0);
  EXPECT_LE(opts.sleeps[1], 2.0);
}

TEST_P(HttpFailures, ServerErrorsExhaustTheRetries) {
  server.script({status(502, R"({"error": {"message": "bad gateway"}})")});
  auto r = client(options())->complete(hello_request());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.kind(), ErrorKind::server);
  EXPECT_EQ(server.received().size(), 4u);  // 1 + 3 retries
  EXPECT_EQ(r.error().message,
            "502 from " + GetParam().name +
                ": server error (the provider says: bad gateway) (gave up after 4 attempts)");
}

TEST_P(HttpFailures, UnauthorizedIsNotRetriedAndNamesTheVariableNotTheKey) {
  const Profile& p = GetParam();
  server.script({status(401, p.unauthorized_body)});
  auto r = client(options())->complete(hello_request());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.kind(), ErrorKind::auth);
  EXPECT_EQ(server.received().size(), 1u);
  EXPECT_TRUE(opts.sleeps.empty());
  EXPECT_EQ(r.error().message.rfind(
                "401 from " + p.name + ": the API key in " + p.key_env + " was rejected", 0),
            0u)
      << r.error().message;
  EXPECT_EQ(r.error().message.find(kFakeKey), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("[redacted]"), std::string::npos) << r.error().message;
}

TEST_P(HttpFailures, ForbiddenSaysTheKeyMayNotUseTheModel) {
  server.script({status(403, R"({"error": {"message": "no access"}})")});
  auto r = client(options())->complete(hello_request());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.kind(), ErrorKind::auth);
  EXPECT_NE(r.error().message.find("not allowed to use model '" + GetParam().model + "'"),
            std::string::npos)
      << r.error().message;
}

TEST_P(HttpFailures, BadRequestAndNotFoundAreNotRetried) {
  server.script({status(400, R"({"error": {"message": "max_tokens: too large"}})")});
  auto r = client(options())->complete(hello_request());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.kind(), ErrorKind::bad_request);
  EXPECT_NE(r.error().message.find("max_tokens: too large"), std::string::npos)
      << r.error().message;
  server.script({status(404, R"({"error": {"message": "model not found"}})")});
  auto nf = client(options())->complete(hello_request());
  ASSERT_FALSE(nf);
  EXPECT_EQ(nf.kind(), ErrorKind::bad_request);
  EXPECT_NE(nf.error().message.find("model '" + GetParam().model + "'"), std::string::npos)
      << nf.error().message;
  EXPECT_NE(nf.error().message.find(GetParam().base_env), std::string::npos) << nf.error().message;
  EXPECT_EQ(server.received().size(), 2u);
  EXPECT_TRUE(opts.sleeps.empty());
}

TEST_P(HttpFailures, MalformedBodyIsReportedAsSuch) {
  server.script({status(200, "<html>gateway</html>")});
  auto r = client(options())->complete(hello_request());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.kind(), ErrorKind::malformed);
  EXPECT_NE(r.error().message.find("not JSON"), std::string::npos) << r.error().message;
  server.script({status(200, R"({"unexpected": true})")});
  auto r2 = client(options())->complete(hello_request());
  ASSERT_FALSE(r2);
  EXPECT_EQ(r2.kind(), ErrorKind::malformed) << r2.error().message;
}

TEST_P(HttpFailures, StreamWithoutItsLastEventIsTruncated) {
  server.script({sse(GetParam().cut_stream)});
  std::string seen;
  StreamCallback cb = [&](const StreamDelta& d) { seen += d.text; };
  auto r = client(options())->complete(hello_request(), &cb);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.kind(), ErrorKind::truncated);
  EXPECT_NE(r.error().message.find("stream ended before the reply was complete"), std::string::npos)
      << r.error().message;
  EXPECT_EQ(server.received().size(), 1u);  // deltas were shown: not retried
}

TEST_P(HttpFailures, ConnectionCutMidStreamIsTruncated) {
  server.script({sse(GetParam().cut_stream, /*cut=*/true)});
  StreamCallback cb = [](const StreamDelta&) {};
  auto r = client(options())->complete(hello_request(), &cb);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.kind(), ErrorKind::truncated) << r.error().message;
}

TEST_P(HttpFailures, MaxTokensIsTruncatedWithThePartialReply) {
  server.script({status(200, GetParam().length_body)});
  auto r = client(options())->complete(hello_request());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.kind(), ErrorKind::truncated);
  EXPECT_NE(r.error().message.find("cut off at max_tokens (100)"), std::string::npos)
      << r.error().message;
  ASSERT_TRUE(r.error().partial);
  EXPECT_EQ(r.error().partial->text, "Hello, world");
  EXPECT_EQ(r.error().partial->usage.output_tokens, 7);
  EXPECT_EQ(r.error().partial->finish_reason, "length");
}

TEST_P(HttpFailures, SlowerThanTheTimeoutIsATimeout) {
  Canned slow = status(200, GetParam().ok_body);
  slow.delay_ms = 700;
  server.script({slow});
  auto o = options();
  o.timeout = std::chrono::milliseconds(150);
  auto start = std::chrono::steady_clock::now();
  auto r = client(o)->complete(hello_request());
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(r);
  EXPECT_EQ(r.kind(), ErrorKind::timeout);
  EXPECT_LT(s, 0.6);
  EXPECT_NE(r.error().message.find("no complete reply within 0.15 s"), std::string::npos)
      << r.error().message;
  EXPECT_EQ(server.received().size(), 1u);  // a timeout is not retried
}

TEST_P(HttpFailures, RefusedConnectionIsANetworkErrorAfterRetries) {
  auto o =
      opts.options({{GetParam().key_env, kFakeKey}, {GetParam().base_env, "http://127.0.0.1:1"}});
  auto r = client(o)->complete(hello_request());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.kind(), ErrorKind::network);
  EXPECT_EQ(opts.sleeps.size(), 3u);
  EXPECT_NE(r.error().message.find("gave up after 4 attempts"), std::string::npos)
      << r.error().message;
}

TEST_P(HttpFailures, CancellingEndsACallInFlight) {
  Canned slow = status(200, GetParam().ok_body);
  slow.delay_ms = 1500;
  server.script({slow});
  std::atomic<bool> cancel{false};
  auto o = options();
  o.cancel = &cancel;
  o.timeout = std::chrono::milliseconds(5000);
  auto c = client(o);
  std::thread t([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    cancel = true;
  });
  auto start = std::chrono::steady_clock::now();
  auto r = c->complete(hello_request());
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  t.join();
  ASSERT_FALSE(r);
  EXPECT_EQ(r.kind(), ErrorKind::cancelled);
  EXPECT_LT(s, 1.3);  // curl polls the flag at least once a second
}

INSTANTIATE_TEST_SUITE_P(Providers, HttpFailures, ::testing::ValuesIn(http_profiles()),
                         [](const ::testing::TestParamInfo<Profile>& info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace kforge::llm::testing
