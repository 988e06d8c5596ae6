// OpenAI and openai-compatible on the wire: what kforge sends (path for both base-URL forms,
// Bearer header, model, messages, max_completion_tokens vs max_tokens, temperature left out for
// reasoning models, stream with include_usage) and what it reads (reasoning_content or
// reasoning, cached and reasoning token counts, a server that ignores "stream").
#include <gtest/gtest.h>

#include "kforge/llm/model_client.h"
#include "kforge/llm/provider_fixtures.h"

namespace kforge::llm::testing {
namespace {

std::unique_ptr<ModelClient> make(const std::string& spec, ClientOptions o) {
  auto s = parse_model_spec(spec);
  EXPECT_TRUE(s) << s.error().message;
  auto c = make_client(*s, o);
  EXPECT_TRUE(c) << c.error().message;
  return std::move(*c);
}

TEST(OpenAi, SendsTheChatCompletionsRequest) {
  TestServer server;
  TestOptions t;
  server.script({status(200, openai_profile().ok_body)});
  auto r = make("openai:gpt-4o",
                t.options({{"OPENAI_API_KEY", kFakeKey}, {"OPENAI_BASE_URL", server.url()}}))
               ->complete(hello_request());
  ASSERT_TRUE(r) << r.error().message;
  auto got = server.received().at(0);
  EXPECT_EQ(got.path, "/v1/chat/completions");
  EXPECT_EQ(got.header("Authorization"), "Bearer " + kFakeKey);
  EXPECT_EQ(got.header("Content-Type"), "application/json");
  auto body = got.json();
  EXPECT_EQ(body["model"], "gpt-4o");
  EXPECT_EQ(
      body["messages"],
      nlohmann::json::parse(
          R"([{"role":"system","content":"You are terse."},{"role":"user","content":"Say hello."}])"));
  EXPECT_EQ(body["max_completion_tokens"], 100);
  EXPECT_FALSE(body.contains("max_tokens"));
  EXPECT_DOUBLE_EQ(body["temperature"].get<double>(), 0.3);
  EXPECT_FALSE(body.contains("stream"));
}

TEST(OpenAi, BaseUrlMayIncludeV1AsTheSdkDoes) {
  TestServer server;
  TestOptions t;
  server.script({status(200, openai_profile().ok_body)});
  auto r =
      make("openai:gpt-4o",
           t.options({{"OPENAI_API_KEY", kFakeKey}, {"OPENAI_BASE_URL", server.url() + "/v1/"}}))
          ->complete(hello_request());
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(server.received().at(0).path, "/v1/chat/completions");
}

TEST(OpenAi, ReasoningModelsGetNoTemperature) {
  TestServer server;
  TestOptions t;
  server.script({status(200, openai_profile().ok_body)});
  auto r = make("openai:o4-mini",
                t.options({{"OPENAI_API_KEY", kFakeKey}, {"OPENAI_BASE_URL", server.url()}}))
               ->complete(hello_request());
  ASSERT_TRUE(r) << r.error().message;
  auto body = server.received().at(0).json();
  EXPECT_FALSE(body.contains("temperature"));
  EXPECT_EQ(body["max_completion_tokens"], 100);
}

TEST(OpenAi, StreamAsksForUsage) {
  TestServer server;
  TestOptions t;
  server.script({sse(openai_profile().ok_stream)});
  StreamCallback cb = [](const StreamDelta&) {};
  auto r = make("openai:gpt-4o",
                t.options({{"OPENAI_API_KEY", kFakeKey}, {"OPENAI_BASE_URL", server.url()}}))
               ->complete(hello_request(), &cb);
  ASSERT_TRUE(r) << r.error().message;
  auto got = server.received().at(0);
  auto body = got.json();
  EXPECT_EQ(body["stream"], true);
  EXPECT_EQ(body["stream_options"]["include_usage"], true);
  EXPECT_EQ(got.header("Accept"), "text/event-stream");
}

TEST(OpenAi, MissingKeyIsAConfigError) {
  TestOptions t;
  auto spec = parse_model_spec("openai:gpt-4o");
  auto c = make_client(*spec, t.options({}));
  ASSERT_FALSE(c);
  EXPECT_EQ(c.kind(), ErrorKind::config);
  EXPECT_NE(c.error().message.find("set OPENAI_API_KEY"), std::string::npos) << c.error().message;
}

TEST(OpenAiCompatible, UsesTheUrlAfterTheAtSignAndMaxTokens) {
  TestServer server;
  TestOptions t;
  server.script({status(200, openai_profile().ok_body)});
  auto r = make("openai-compatible:qwen2.5-coder@" + server.url() + "/v1", t.options({}))
               ->complete(hello_request());
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->provider, "openai-compatible");
  EXPECT_EQ(r->model, "qwen2.5-coder");
  auto got = server.received().at(0);
  EXPECT_EQ(got.path, "/v1/chat/completions");
  EXPECT_FALSE(got.has_header("Authorization"));  // no key configured: none sent
  auto body = got.json();
  EXPECT_EQ(body["model"], "qwen2.5-coder");
  EXPECT_EQ(body["max_tokens"], 100);
  EXPECT_TRUE(body.contains("temperature"));
}

TEST(OpenAiCompatible, OwnKeyWinsOverTheOpenAiKey) {
  TestServer server;
  TestOptions t;
  server.script({status(200, openai_profile().ok_body)});
  auto r = make("openai-compatible:m@" + server.url(),
                t.options({{"OPENAI_API_KEY", "sk-openai"},
                           {"KFORGE_OPENAI_COMPATIBLE_KEY", "local-key"}}))
               ->complete(hello_request());
  ASSERT_TRUE(r);
  EXPECT_EQ(server.received().at(0).header("Authorization"), "Bearer local-key");
}

TEST(OpenAiCompatible, UnauthorizedWithoutAKeySaysWhichVariableToSet) {
  TestServer server;
  TestOptions t;
  server.script({status(401, R"({"error": "auth required"})")});
  auto r = make("openai-compatible:m@" + server.url(), t.options({}))->complete(hello_request());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.kind(), ErrorKind::auth);
  EXPECT_NE(r.error().message.find("wants an API key: set KFORGE_OPENAI_COMPATIBLE_KEY"),
            std::string::npos)
      << r.error().message;
}

TEST(OpenAiCompatible, ReadsReasoningFieldAndToleratesNullContent) {
  TestServer server;
  TestOptions t;
  server.script({status(
      200,
      R"({"choices":[{"index":0,"message":{"role":"assistant","content":null,"reasoning":"hmm"},"finish_reason":"stop"}],
                                 "usage":{"prompt_tokens":3,"completion_tokens":2}})")});
  auto r = make("openai-compatible:m@" + server.url(), t.options({}))->complete(hello_request());
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->text, "");
  EXPECT_EQ(r->reasoning, "hmm");
  EXPECT_EQ(r->usage.input_tokens, 3);
}

TEST(OpenAiCompatible, ServerThatIgnoresStreamStillAnswers) {
  TestServer server;
  TestOptions t;
  server.script({status(200, openai_profile().ok_body)});
  std::string seen;
  StreamCallback cb = [&](const StreamDelta& d) { seen += d.text; };
  auto r =
      make("openai-compatible:m@" + server.url(), t.options({}))->complete(hello_request(), &cb);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->text, "Hello, world");
  EXPECT_EQ(seen, "Hello, world");
}

TEST(OpenAi, ErrorInsideAStreamIsAServerError) {
  TestServer server;
  TestOptions t;
  server.script({sse({data({{"error", {{"message", "model overloaded"}}}})})});
  StreamCallback cb = [](const StreamDelta&) {};
  auto r = make("openai:gpt-4o",
                t.options({{"OPENAI_API_KEY", kFakeKey}, {"OPENAI_BASE_URL", server.url()}}))
               ->complete(hello_request(), &cb);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.kind(), ErrorKind::server);
  EXPECT_NE(r.error().message.find("model overloaded"), std::string::npos) << r.error().message;
}

}  // namespace
}  // namespace kforge::llm::testing
