// What kforge adds to a model call. (1) Against a local server: 200 rounds, each a full
// session call (request build, HTTP, parse, pricing, transcript line, store row) and a bare
// HTTP exchange of the same bytes through the same kind of transport, in random order within
// the round; the difference of the medians. (2) With the transport replaced by one that answers
// at once: the whole per-call cost of kforge with no network at all. (3) Each piece alone.
// Prints the numbers; fails only if kforge's own cost is absurd (> 5 ms per call).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <random>

#include "kforge/llm/http_transport.h"
#include "kforge/llm/provider_fixtures.h"
#include "kforge/llm/response_cache.h"
#include "kforge/llm/session.h"
#include "kforge/llm/transcript.h"
#include "kforge/llm/wire.h"
#include "kforge/store/store.h"

namespace kforge::llm::testing {
namespace {

using clock_type = std::chrono::steady_clock;

double ms_since(clock_type::time_point t) {
  return std::chrono::duration<double, std::milli>(clock_type::now() - t).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// A typical agent exchange: a 16 KiB prompt (task, ABI, current kernel), a 4 KiB reply.
ChatRequest typical_request() {
  ChatRequest r;
  r.agent_role = "coder";
  r.messages = {{"system", std::string(2048, 's')}, {"user", std::string(14336, 'u')}};
  return r;
}

std::string typical_reply_body() {
  auto j = nlohmann::json::parse(openai_profile().ok_body);
  j["choices"][0]["message"]["content"] = std::string(4096, 'r');
  return j.dump();
}

// Answers every request at once with the same body.
class InstantTransport : public HttpTransport {
 public:
  explicit InstantTransport(std::string body) : body_(std::move(body)) {}
  HttpResponse post(const HttpRequest&, const ChunkReader*, const std::atomic<bool>*) override {
    HttpResponse r;
    r.status = 200;
    r.content_type = "application/json";
    r.body = body_;
    return r;
  }

 private:
  std::string body_;
};

constexpr int kCalls = 200;

TEST(Overhead, PerCall) {
  TestServer server;
  TempDir dir;
  std::string reply_body = typical_reply_body();
  server.script({status(200, reply_body)});
  LlmConfig config;
  config.models["default"] = "openai:gpt-4o";
  auto session = LlmSession::open(
      config, {.state_dir = dir.path() / "live",
               .getenv = env({{"OPENAI_API_KEY", kFakeKey}, {"OPENAI_BASE_URL", server.url()}})});
  ASSERT_TRUE(session) << session.error().message;
  ChatRequest req = typical_request();
  ASSERT_TRUE((*session)->complete(req));

  // (1) Against the local server.
  HttpRequest raw;
  raw.url = server.url() + "/v1/chat/completions";
  raw.headers = {{"Content-Type", "application/json"},
                 {"Accept", "application/json"},
                 {"Authorization", "Bearer " + kFakeKey}};
  raw.body = server.received().at(0).body;
  auto transport = make_curl_transport();
  std::vector<double> full, bare;
  std::mt19937 rng(42);
  for (int i = 0; i < kCalls + 20; ++i) {
    bool session_first = rng() & 1;
    for (int k = 0; k < 2; ++k) {
      auto t = clock_type::now();
      if ((k == 0) == session_first) {
        ASSERT_TRUE((*session)->complete(req));
        if (i >= 20) full.push_back(ms_since(t));
      } else {
        ASSERT_EQ(transport->post(raw, nullptr, nullptr).status, 200);
        if (i >= 20) bare.push_back(ms_since(t));
      }
    }
  }

  // (2) No network: the transport answers at once.
  SessionOptions o{.state_dir = dir.path() / "instant",
                   .getenv = env({{"OPENAI_API_KEY", kFakeKey}})};
  o.client.transport = std::make_shared<InstantTransport>(reply_body);
  auto instant = LlmSession::open(config, o);
  ASSERT_TRUE(instant);
  std::vector<double> own;
  for (int i = 0; i < kCalls + 20; ++i) {
    auto t = clock_type::now();
    ASSERT_TRUE((*instant)->complete(req));
    if (i >= 20) own.push_back(ms_since(t));
  }

  // (3) The pieces alone.
  WireInfo info{"openai", "gpt-4o", server.url(), "OPENAI_BASE_URL", kFakeKey, "OPENAI_API_KEY"};
  auto wire = make_openai_wire(info, false);
  std::vector<double> build, parse, key, append, insert;
  auto writer = TranscriptWriter::open(dir.path() / "bench" / "transcript.jsonl");
  ASSERT_TRUE(writer);
  auto db = store::open_store(dir.path() / "bench.db");
  ASSERT_TRUE(db);
  ASSERT_TRUE(store::insert_session(**db, {"bench", utc_timestamp(), "", ""}));
  ChatReply parsed = *wire->parse(reply_body);
  for (int i = 0; i < kCalls; ++i) {
    auto t = clock_type::now();
    auto http = wire->build(req, false);
    build.push_back(ms_since(t));
    t = clock_type::now();
    ASSERT_TRUE(wire->parse(reply_body));
    parse.push_back(ms_since(t));
    t = clock_type::now();
    auto k = cache_key("openai:gpt-4o", req);
    key.push_back(ms_since(t));
    TranscriptEntry e{utc_timestamp(), "bench", i + 1, req, parsed, std::nullopt};
    t = clock_type::now();
    ASSERT_TRUE((*writer)->append(e));
    append.push_back(ms_since(t));
    store::LlmCallRecord row{"bench", i + 1, e.time, "coder", "openai", "gpt-4o",
                             10,      7,     4,      2,       5.0,      0.001};
    row.request_key = k;
    t = clock_type::now();
    ASSERT_TRUE(store::insert_llm_call(**db, row));
    insert.push_back(ms_since(t));
  }

  std::printf("[ overhead ] %d calls, 16 KiB prompt, 4 KiB reply (medians)\n", kCalls);
  std::printf(
      "[ overhead ] local server: bare HTTP exchange %.3f ms, full session call %.3f ms: kforge "
      "adds %.3f ms\n",
      median(bare), median(full), median(full) - median(bare));
  std::printf("[ overhead ] no network:   full session call %.3f ms\n", median(own));
  std::printf(
      "[ overhead ]   build request %.3f, parse reply %.3f, cache key %.3f, transcript line %.3f, "
      "store row %.3f ms\n",
      median(build), median(parse), median(key), median(append), median(insert));
  RecordProperty("own_ms", std::to_string(median(own)));
  EXPECT_LT(median(own), 5.0);
}

}  // namespace
}  // namespace kforge::llm::testing
