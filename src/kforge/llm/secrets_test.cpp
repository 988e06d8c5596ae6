// API keys stay secret: with a fake key that the server echoes back in its error bodies (as
// some gateways and proxies do), a session against each HTTP provider makes a good call, a
// streamed call, a 401, a 500 and a 400; the key reaches the server, yet it appears in none of
// the error messages, the transcript, the database files, nor anything printed on stderr.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "kforge/llm/provider_fixtures.h"
#include "kforge/llm/session.h"

namespace kforge::llm::testing {
namespace {

class Secrets : public ::testing::TestWithParam<Profile> {};

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST_P(Secrets, KeyNeverLeavesInText) {
  const Profile& p = GetParam();
  TestServer server;
  TempDir dir;
  std::string echo = R"({"error": {"message": "key )" + kFakeKey + R"( is bad"}})";
  server.script({status(200, p.ok_body), sse(p.ok_stream), status(401, p.unauthorized_body),
                 status(500, echo), status(400, echo)});

  LlmConfig config;
  config.models["default"] = p.spec;
  config.retries = 0;
  SessionOptions o;
  o.state_dir = dir.path();
  o.getenv = env({{p.key_env, kFakeKey}, {p.base_env, server.url()}});
  o.client.sleep = [](double) {};
  ::testing::internal::CaptureStderr();
  std::vector<std::string> messages;
  std::filesystem::path transcript;
  {
    auto s = LlmSession::open(config, o);
    ASSERT_TRUE(s) << s.error().message;
    transcript = (*s)->transcript_path();
    ChatRequest req = hello_request();
    ASSERT_TRUE((*s)->complete(req));
    StreamCallback cb = [](const StreamDelta&) {};
    ASSERT_TRUE((*s)->complete(req, &cb));
    for (int i = 0; i < 3; ++i) {
      auto r = (*s)->complete(req);
      ASSERT_FALSE(r);
      messages.push_back(r.error().message);
    }
  }
  std::string err = ::testing::internal::GetCapturedStderr();

  auto got = server.received();
  ASSERT_EQ(got.size(), 5u);
  std::string sent_header = got[0].header(p.key_env == "OPENAI_API_KEY"      ? "Authorization"
                                          : p.key_env == "ANTHROPIC_API_KEY" ? "x-api-key"
                                                                             : "x-goog-api-key");
  EXPECT_NE(sent_header.find(kFakeKey), std::string::npos);  // it was used

  for (const auto& m : messages) {
    EXPECT_EQ(m.find(kFakeKey), std::string::npos) << m;
    EXPECT_NE(m.find("[redacted]"), std::string::npos) << m;
  }
  EXPECT_EQ(err.find(kFakeKey), std::string::npos);
  std::string t = slurp(transcript);
  EXPECT_EQ(std::count(t.begin(), t.end(), '\n'), 5);
  EXPECT_EQ(t.find(kFakeKey), std::string::npos);
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    if (entry.path().filename().string().rfind("kforge.db", 0) != 0) continue;
    EXPECT_EQ(slurp(entry.path()).find(kFakeKey), std::string::npos) << entry.path();
  }
}

INSTANTIATE_TEST_SUITE_P(Providers, Secrets, ::testing::ValuesIn(http_profiles()),
                         [](const ::testing::TestParamInfo<Profile>& info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace kforge::llm::testing
