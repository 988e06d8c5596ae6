// Gemini generateContent on the wire: the model in the path, the key in x-goog-api-key (never
// in the URL), contents with user/model roles and parts, systemInstruction, generationConfig;
// the SSE endpoint with alt=sse; thought parts as reasoning and thoughtsTokenCount as reasoning
// tokens; 400 API_KEY_INVALID read as an auth failure; GOOGLE_API_KEY as the fallback key; a
// blocked prompt.
#include <gtest/gtest.h>

#include "kforge/llm/model_client.h"
#include "kforge/llm/provider_fixtures.h"

namespace kforge::llm::testing {
namespace {

std::unique_ptr<ModelClient> make(TestOptions& t, std::map<std::string, std::string> vars) {
  auto c = make_client(*parse_model_spec("gemini:gemini-2.5-pro"), t.options(std::move(vars)));
  EXPECT_TRUE(c) << c.error().message;
  return std::move(*c);
}

TEST(Gemini, SendsTheGenerateContentRequest) {
  TestServer server;
  TestOptions t;
  server.script({status(200, gemini_profile().ok_body)});
  ChatRequest req = hello_request();
  req.messages.push_back({"assistant", "Hello."});
  req.messages.push_back({"user", "Again."});
  auto r =
      make(t, {{"GEMINI_API_KEY", kFakeKey}, {"GEMINI_BASE_URL", server.url()}})->complete(req);
  ASSERT_TRUE(r) << r.error().message;
  auto got = server.received().at(0);
  EXPECT_EQ(got.path, "/v1beta/models/gemini-2.5-pro:generateContent");
  EXPECT_EQ(got.header("x-goog-api-key"), kFakeKey);
  EXPECT_EQ(got.target.find(kFakeKey), std::string::npos);
  auto body = got.json();
  EXPECT_EQ(body["systemInstruction"]["parts"][0]["text"], "You are terse.");
  ASSERT_EQ(body["contents"].size(), 3u);
  EXPECT_EQ(body["contents"][0]["role"], "user");
  EXPECT_EQ(body["contents"][0]["parts"][0]["text"], "Say hello.");
  EXPECT_EQ(body["contents"][1]["role"], "model");
  EXPECT_EQ(body["generationConfig"]["maxOutputTokens"], 100);
  EXPECT_DOUBLE_EQ(body["generationConfig"]["temperature"].get<double>(), 0.3);
}

TEST(Gemini, GoogleApiKeyIsTheFallback) {
  TestServer server;
  TestOptions t;
  server.script({status(200, gemini_profile().ok_body)});
  auto r = make(t, {{"GOOGLE_API_KEY", "g-key"}, {"GEMINI_BASE_URL", server.url() + "/v1beta"}})
               ->complete(hello_request());
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(server.received().at(0).header("x-goog-api-key"), "g-key");
  EXPECT_EQ(server.received().at(0).path, "/v1beta/models/gemini-2.5-pro:generateContent");
}

TEST(Gemini, InvalidKeyAnsweredWith400IsAnAuthError) {
  TestServer server;
  TestOptions t;
  server.script({status(
      400,
      R"({"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT",
                                  "details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID"}]}})")});
  auto r = make(t, {{"GEMINI_API_KEY", kFakeKey}, {"GEMINI_BASE_URL", server.url()}})
               ->complete(hello_request());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.kind(), ErrorKind::auth);
  EXPECT_EQ(
      r.error().message.rfind("400 from gemini: the API key in GEMINI_API_KEY was rejected", 0), 0u)
      << r.error().message;
}

TEST(Gemini, BlockedPromptIsABadRequest) {
  TestServer server;
  TestOptions t;
  server.script({status(
      200,
      R"({"promptFeedback":{"blockReason":"SAFETY"},"usageMetadata":{"promptTokenCount":5}})")});
  auto r = make(t, {{"GEMINI_API_KEY", kFakeKey}, {"GEMINI_BASE_URL", server.url()}})
               ->complete(hello_request());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.kind(), ErrorKind::bad_request);
  EXPECT_NE(r.error().message.find("blocked (SAFETY)"), std::string::npos) << r.error().message;
}

TEST(Gemini, StreamedThoughtsAreReasoning) {
  TestServer server;
  TestOptions t;
  server.script({sse(gemini_profile().ok_stream)});
  std::string reasoning;
  StreamCallback cb = [&](const StreamDelta& d) { reasoning += d.reasoning; };
  auto r = make(t, {{"GEMINI_API_KEY", kFakeKey}, {"GEMINI_BASE_URL", server.url()}})
               ->complete(hello_request(), &cb);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(server.received().at(0).target,
            "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse");
  EXPECT_EQ(reasoning, "think");
  EXPECT_EQ(r->usage.reasoning_tokens, 2);
  EXPECT_EQ(r->usage.output_tokens, 7);  // 5 candidate + 2 thought tokens
}

}  // namespace
}  // namespace kforge::llm::testing
