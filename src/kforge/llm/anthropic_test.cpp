// Anthropic Messages on the wire: path, x-api-key and anthropic-version headers, the system
// prompt as the top-level "system", max_tokens and temperature in the body, stream: true; what
// comes back: thinking blocks as reasoning, cache reads as cached input tokens, an error event
// in the middle of a stream (overloaded) reported with its kind.
#include <gtest/gtest.h>

#include "kforge/llm/model_client.h"
#include "kforge/llm/provider_fixtures.h"

namespace kforge::llm::testing {
namespace {

std::unique_ptr<ModelClient> make(TestOptions& t, const std::string& url) {
  auto c = make_client(*parse_model_spec("anthropic:claude-sonnet-4-5"),
                       t.options({{"ANTHROPIC_API_KEY", kFakeKey}, {"ANTHROPIC_BASE_URL", url}}));
  EXPECT_TRUE(c) << c.error().message;
  return std::move(*c);
}

TEST(Anthropic, SendsTheMessagesRequest) {
  TestServer server;
  TestOptions t;
  server.script({status(200, anthropic_profile().ok_body)});
  ChatRequest req = hello_request();
  req.messages.push_back({"assistant", "Hello."});
  req.messages.push_back({"user", "Again."});
  auto r = make(t, server.url())->complete(req);
  ASSERT_TRUE(r) << r.error().message;
  auto got = server.received().at(0);
  EXPECT_EQ(got.path, "/v1/messages");
  EXPECT_EQ(got.header("x-api-key"), kFakeKey);
  EXPECT_EQ(got.header("anthropic-version"), "2023-06-01");
  EXPECT_FALSE(got.has_header("Authorization"));
  auto body = got.json();
  EXPECT_EQ(body["model"], "claude-sonnet-4-5");
  EXPECT_EQ(body["system"], "You are terse.");
  EXPECT_EQ(body["max_tokens"], 100);
  EXPECT_DOUBLE_EQ(body["temperature"].get<double>(), 0.3);
  ASSERT_EQ(body["messages"].size(), 3u);  // the system message is not among them
  EXPECT_EQ(body["messages"][0]["role"], "user");
  EXPECT_EQ(body["messages"][1]["role"], "assistant");
  EXPECT_FALSE(body.contains("stream"));
}

TEST(Anthropic, BaseUrlWithV1Works) {
  TestServer server;
  TestOptions t;
  server.script({status(200, anthropic_profile().ok_body)});
  auto r = make(t, server.url() + "/v1")->complete(hello_request());
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(server.received().at(0).path, "/v1/messages");
}

TEST(Anthropic, StreamRequestAndThinkingDeltas) {
  TestServer server;
  TestOptions t;
  server.script({sse(anthropic_profile().ok_stream)});
  std::vector<std::string> reasoning;
  StreamCallback cb = [&](const StreamDelta& d) {
    if (!d.reasoning.empty()) reasoning.emplace_back(d.reasoning);
  };
  auto r = make(t, server.url())->complete(hello_request(), &cb);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(server.received().at(0).json()["stream"], true);
  EXPECT_EQ(reasoning, std::vector<std::string>{"think"});
  EXPECT_EQ(r->usage.input_tokens, 10);  // 6 uncached + 4 read from the cache
  EXPECT_EQ(r->usage.cached_tokens, 4);
}

TEST(Anthropic, OverloadedErrorEventInTheStreamIsRetriedWhenNothingWasShown) {
  TestServer server;
  TestOptions t;
  server.script(
      {sse({event("error",
                  {{"type", "error"},
                   {"error", {{"type", "overloaded_error"}, {"message", "Overloaded"}}}})}),
       sse(anthropic_profile().ok_stream)});
  std::string text;
  StreamCallback cb = [&](const StreamDelta& d) { text += d.text; };
  auto r = make(t, server.url())->complete(hello_request(), &cb);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(server.received().size(), 2u);
  EXPECT_EQ(text, "Hello, world");  // shown once
}

TEST(Anthropic, ErrorEventAfterTextWasShownIsReportedNotRetried) {
  TestServer server;
  TestOptions t;
  auto events = anthropic_profile().cut_stream;
  events.push_back(event(
      "error",
      {{"type", "error"}, {"error", {{"type", "overloaded_error"}, {"message", "Overloaded"}}}}));
  server.script({sse(events), sse(anthropic_profile().ok_stream)});
  StreamCallback cb = [](const StreamDelta&) {};
  auto r = make(t, server.url())->complete(hello_request(), &cb);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.kind(), ErrorKind::server);
  EXPECT_NE(r.error().message.find("overloaded_error: Overloaded"), std::string::npos)
      << r.error().message;
  EXPECT_EQ(server.received().size(), 1u);
}

TEST(Anthropic, OverloadedStatus529IsRetried) {
  TestServer server;
  TestOptions t;
  server.script(
      {status(529,
              R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})"),
       status(200, anthropic_profile().ok_body)});
  auto r = make(t, server.url())->complete(hello_request());
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(server.received().size(), 2u);
}

}  // namespace
}  // namespace kforge::llm::testing
