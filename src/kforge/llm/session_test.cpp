// LlmSession, with a scripted model client: which model a role gets (--model, KFORGE_MODEL,
// [models].ROLE, [models].default) and the error when none; every call lands in the transcript
// and in llm_calls with its usage, latency, cost (or the unpriced flag) and error; the response
// cache answers a repeated request for free; the budget stops the next call; a reply cut at
// max_tokens is still charged; the cancellation flag stops calls; parallel calls are all
// recorded with distinct call numbers; a resumed session goes on numbering; a provider that
// reports no usage gets estimated tokens, marked so everywhere, and a token budget stops it.
#include "kforge/llm/session.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <thread>

#include "kforge/llm/llm_test_util.h"
#include "kforge/llm/token_estimate.h"
#include "kforge/llm/transcript.h"
#include "kforge/store/store.h"

namespace kforge::llm {
namespace {

using testing::TempDir;

// Answers "echo: <last message>" with fixed usage; can be told to fail or cut at max_tokens.
class ScriptedClient : public ModelClient {
 public:
  explicit ScriptedClient(ModelSpec spec) : spec_(std::move(spec)) {}
  std::string name() const override { return spec_.text; }
  LlmResult complete(const ChatRequest& request, const StreamCallback* on_delta) override {
    ++calls;
    const std::string& last = request.messages.back().content;
    if (last == "fail") return LlmError{ErrorKind::server, "503 from openai: server error"};
    ChatReply r;
    r.text = "echo: " + last;
    r.finish_reason = "stop";
    r.provider = std::string(provider_name(spec_.provider));
    r.model = spec_.model;
    r.usage = {1000, 500, 200, 0};
    if (last.rfind("unmetered", 0) == 0)
      r.usage = {};  // a provider that reports no usage (a cmd: program)
    r.latency_ms = 12;
    if (on_delta) (*on_delta)({.text = r.text});
    if (last == "long") {
      r.finish_reason = "length";
      return LlmError{ErrorKind::truncated, "cut off at max_tokens", r};
    }
    return r;
  }
  std::atomic<int> calls{0};

 private:
  ModelSpec spec_;
};

struct Harness {
  TempDir dir;
  std::map<std::string, ScriptedClient*> clients;
  std::map<std::string, std::string> env;

  std::unique_ptr<LlmSession> open(LlmConfig config, SessionOptions o = {}) {
    o.state_dir = dir.path();
    o.getenv = [this](const std::string& n) -> std::optional<std::string> {
      auto it = env.find(n);
      return it == env.end() ? std::nullopt : std::optional<std::string>(it->second);
    };
    o.make_client = [this](const ModelSpec& spec,
                           const ClientOptions&) -> LlmResultOf<std::unique_ptr<ModelClient>> {
      auto c = std::make_unique<ScriptedClient>(spec);
      clients[spec.text] = c.get();
      return std::unique_ptr<ModelClient>(std::move(c));
    };
    auto s = LlmSession::open(std::move(config), std::move(o));
    EXPECT_TRUE(s) << s.error().message;
    return std::move(*s);
  }
};

LlmConfig config_with(std::map<std::string, std::string> models, bool cache = false) {
  LlmConfig c;
  c.models = std::move(models);
  c.cache = cache;
  return c;
}

ChatRequest ask(const std::string& role, const std::string& text) {
  ChatRequest r;
  r.agent_role = role;
  r.messages = {{"system", "sys"}, {"user", text}};
  return r;
}

std::vector<nlohmann::json> lines(const std::filesystem::path& path) {
  std::vector<nlohmann::json> out;
  std::ifstream in(path);
  for (std::string l; std::getline(in, l);) out.push_back(nlohmann::json::parse(l));
  return out;
}

TEST(Session, ModelPrecedence) {
  Harness h;
  auto s = h.open(
      config_with({{"default", "openai:gpt-4o"}, {"planner", "anthropic:claude-sonnet-4-5"}}));
  EXPECT_EQ(s->model_for("planner")->text, "anthropic:claude-sonnet-4-5");
  EXPECT_EQ(s->model_for("coder")->text, "openai:gpt-4o");
  h.env["KFORGE_MODEL"] = "gemini:gemini-2.5-pro";
  EXPECT_EQ(s->model_for("planner")->text, "gemini:gemini-2.5-pro");
  auto s2 = h.open(config_with({{"default", "openai:gpt-4o"}}), {.model = "cmd:cat"});
  EXPECT_EQ(s2->model_for("planner")->text, "cmd:cat");
}

TEST(Session, NoModelSaysHowToChooseOne) {
  Harness h;
  auto s = h.open(config_with({}));
  auto r = s->complete(ask("planner", "hi"));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.kind(), ErrorKind::config);
  EXPECT_EQ(r.error().message,
            "no model for role 'planner': pass --model PROVIDER:MODEL, set KFORGE_MODEL, or add "
            "[models] default = \"…\" (or planner = \"…\") to "
            "kforge.toml");
}

TEST(Session, BadModelOverrideIsRefusedAtOpen) {
  Harness h;
  auto s = LlmSession::open(LlmConfig{}, {.model = "gpt4", .state_dir = h.dir.path()});
  ASSERT_FALSE(s);
  EXPECT_EQ(s.kind(), ErrorKind::config);
  EXPECT_EQ(s.error().message.rfind("--model: 'gpt4' is not PROVIDER:MODEL", 0), 0u)
      << s.error().message;
}

TEST(Session, RecordsEveryCallInTheTranscriptAndTheStore) {
  Harness h;
  auto s = h.open(config_with({{"default", "openai:gpt-4o"}, {"coder", "openai:unknown-model"}}),
                  {.command = "kforge test"});
  auto a = s->complete(ask("planner", "plan it"));
  ASSERT_TRUE(a) << a.error().message;
  EXPECT_EQ(a->text, "echo: plan it");
  // gpt-4o: 800 uncached × 2.5 + 200 cached × 1.25 + 500 out × 10, per million.
  EXPECT_NEAR(a->cost_usd, (800 * 2.5 + 200 * 1.25 + 500 * 10.0) / 1e6, 1e-12);
  EXPECT_TRUE(a->priced);
  auto b = s->complete(ask("coder", "code it"));
  ASSERT_TRUE(b);
  EXPECT_FALSE(b->priced);
  EXPECT_EQ(b->cost_usd, 0);
  auto c = s->complete(ask("planner", "fail"));
  ASSERT_FALSE(c);

  auto t = lines(s->transcript_path());
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[0]["session"], s->id());
  EXPECT_EQ(t[0]["call"], 1);
  EXPECT_EQ(t[0]["role"], "planner");
  EXPECT_EQ(t[0]["provider"], "openai");
  EXPECT_EQ(t[0]["model"], "gpt-4o");
  EXPECT_EQ(t[0]["messages"][1]["content"], "plan it");
  EXPECT_EQ(t[0]["params"]["max_tokens"], 8192);
  EXPECT_EQ(t[0]["text"], "echo: plan it");
  EXPECT_EQ(t[0]["finish_reason"], "stop");
  EXPECT_EQ(t[0]["usage"]["cached_tokens"], 200);
  EXPECT_GT(t[0]["cost_usd"].get<double>(), 0);
  EXPECT_TRUE(t[0]["error"].is_null());
  EXPECT_EQ(t[1]["priced"], false);
  EXPECT_EQ(t[2]["error"]["kind"], "server");
  EXPECT_EQ(t[2]["error"]["message"], "503 from openai: server error");
  EXPECT_GT(t[2]["latency_ms"].get<double>(), 0);  // failed calls keep their duration

  auto db = store::open_store(store::store_path(h.dir.path()));
  ASSERT_TRUE(db);
  auto session = store::find_session(**db, s->id());
  ASSERT_TRUE(session && session->has_value());
  EXPECT_EQ((*session)->command, "kforge test");
  auto usage = store::llm_usage(**db, s->id());
  ASSERT_TRUE(usage);
  ASSERT_EQ(usage->size(), 2u);  // coder/unknown-model, planner/gpt-4o
  EXPECT_EQ((*usage)[1].role, "planner");
  EXPECT_EQ((*usage)[1].calls, 2);
  EXPECT_EQ((*usage)[1].failed_calls, 1);
  EXPECT_EQ((*usage)[1].input_tokens, 1000);
  EXPECT_NEAR((*usage)[1].cost_usd, a->cost_usd, 1e-12);
  EXPECT_TRUE((*usage)[0].unpriced);

  auto totals = s->totals();
  EXPECT_EQ(totals.calls, 3);
  EXPECT_EQ(totals.failed_calls, 1);
  EXPECT_EQ(totals.usage.input_tokens, 2000);
  EXPECT_TRUE(totals.unpriced);
}

TEST(Session, CacheAnswersRepeatsForFree) {
  Harness h;
  auto s = h.open(config_with({{"default", "openai:gpt-4o"}}, /*cache=*/true));
  auto first = s->complete(ask("coder", "same"));
  ASSERT_TRUE(first);
  EXPECT_FALSE(first->cached);
  std::string streamed;
  StreamCallback cb = [&](const StreamDelta& d) { streamed += d.text; };
  auto second = s->complete(ask("planner", "same"), &cb);  // another role, same prompt
  ASSERT_TRUE(second);
  EXPECT_TRUE(second->cached);
  EXPECT_EQ(second->cost_usd, 0);
  EXPECT_EQ(second->text, first->text);
  EXPECT_EQ(streamed, first->text);
  EXPECT_EQ(h.clients["openai:gpt-4o"]->calls.load(), 1);
  auto t = s->totals();
  EXPECT_EQ(t.calls, 2);
  EXPECT_EQ(t.cached_calls, 1);
  EXPECT_EQ(t.usage.input_tokens, 1000);
  EXPECT_NEAR(t.cost_usd, first->cost_usd, 1e-12);
  // A new session (a re-run) is answered from the cache too.
  auto rerun = h.open(config_with({{"default", "openai:gpt-4o"}}, true));
  auto third = rerun->complete(ask("coder", "same"));
  ASSERT_TRUE(third);
  EXPECT_TRUE(third->cached);
  EXPECT_EQ(lines(rerun->transcript_path()).at(0)["cached"], true);
}

TEST(Session, BudgetStopsTheNextCall) {
  Harness h;
  auto s = h.open(config_with({{"default", "openai:gpt-4o"}}), {.budget = {.max_usd = 0.01}});
  int done = 0;
  for (int i = 0; i < 10; ++i) {
    auto r = s->complete(ask("coder", "step " + std::to_string(i)));
    if (!r) {
      EXPECT_EQ(r.kind(), ErrorKind::budget_exhausted);
      break;
    }
    ++done;
  }
  // Each call costs $0.00725: the second one crosses $0.01, the third is refused.
  EXPECT_EQ(done, 2);
  EXPECT_FALSE(s->check_budget());
  EXPECT_EQ(lines(s->transcript_path()).size(), 2u);  // the refused call is not a call
}

// A cmd: program reports no usage: its tokens are estimated from the text, marked estimated in
// the reply, the transcript, the store and the totals, and charged to a --max-tokens budget.
TEST(Session, EstimatesTokensWhenTheProviderReportsNone) {
  Harness h;
  auto s =
      h.open(config_with({{"default", "cmd:python3 model.py"}}), {.budget = {.max_tokens = 200}});
  std::string prompt =
      "unmetered " + std::string(400, 'x') + " for (int i = 0; i < n; ++i) y[i] = x[i];";
  auto a = s->complete(ask("coder", prompt));
  ASSERT_TRUE(a) << a.error().message;
  EXPECT_TRUE(a->usage.estimated);
  EXPECT_GT(a->usage.input_tokens, 100);
  EXPECT_GT(a->usage.output_tokens, 100);  // the reply echoes the prompt
  EXPECT_EQ(a->cost_usd, 0);               // a local program is free unless priced
  EXPECT_TRUE(a->priced);
  EXPECT_TRUE(s->totals().estimated);
  EXPECT_EQ(lines(s->transcript_path())[0]["usage"]["estimated"], true);
  auto db = store::open_store(store::store_path(h.dir.path()));
  ASSERT_TRUE(db);
  auto usage = store::llm_usage(**db, s->id());
  ASSERT_TRUE(usage && usage->size() == 1u);
  EXPECT_TRUE((*usage)[0].estimated);
  EXPECT_EQ((*usage)[0].input_tokens, a->usage.input_tokens);
  // The estimate counts against the token budget: the next call is refused.
  auto b = s->complete(ask("coder", "unmetered again"));
  ASSERT_FALSE(b);
  EXPECT_EQ(b.kind(), ErrorKind::budget_exhausted);
}

// A cmd: program given a price in kforge.toml (one that wraps a paid API) is charged for its
// estimated tokens, so a dollar budget works for it too.
TEST(Session, PricedCommandIsChargedForEstimatedTokens) {
  Harness h;
  auto config = config_with({{"default", "cmd:wrap-api"}});
  config.prices.set("cmd:wrap-api", {1.0, 2.0, 0.0});
  auto s = h.open(config);
  auto a = s->complete(ask("coder", "unmetered hello there"));
  ASSERT_TRUE(a) << a.error().message;
  EXPECT_TRUE(a->usage.estimated);
  EXPECT_NEAR(a->cost_usd, (a->usage.input_tokens * 1.0 + a->usage.output_tokens * 2.0) / 1e6,
              1e-12);
}

// The words of prose come out near 4 characters a token; code's punctuation counts more.
TEST(TokenEstimate, ProseAndCode) {
  EXPECT_EQ(estimate_tokens(""), 0);
  EXPECT_EQ(estimate_tokens("the cat sat"), 3);
  EXPECT_EQ(estimate_tokens("vectorization"), 4);
  EXPECT_EQ(estimate_tokens("x[i] = 12345;"), 1 + 1 + 1 + 1 + 1 + 2 + 1);
  EXPECT_EQ(estimate_tokens("line\nnext"), 3);
  EXPECT_EQ(estimate_tokens("≤ ±"), 2);  // one token per non-ASCII character
  std::string prose =
      "Fusing the elementwise tail into the producer removes whole passes over memory. ";
  double per_token =
      static_cast<double>(prose.size()) / static_cast<double>(estimate_tokens(prose));
  EXPECT_GT(per_token, 3.0);
  EXPECT_LT(per_token, 6.0);
}

TEST(Session, ReplyCutAtMaxTokensIsStillCharged) {
  Harness h;
  auto s = h.open(config_with({{"default", "openai:gpt-4o"}}), {.budget = {.max_tokens = 1000}});
  auto r = s->complete(ask("coder", "long"));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.kind(), ErrorKind::truncated);
  ASSERT_TRUE(r.error().partial);
  EXPECT_GT(r.error().partial->cost_usd, 0);
  EXPECT_EQ(s->totals().usage.output_tokens, 500);
  auto next = s->complete(ask("coder", "more"));
  ASSERT_FALSE(next);
  EXPECT_EQ(next.kind(), ErrorKind::budget_exhausted);
  auto t = lines(s->transcript_path());
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0]["error"]["kind"], "truncated");
  EXPECT_EQ(t[0]["text"], "echo: long");
  EXPECT_EQ(t[0]["finish_reason"], "length");
}

TEST(Session, CancellationFlagStopsCalls) {
  Harness h;
  std::atomic<bool> cancel{true};
  auto s = h.open(config_with({{"default", "openai:gpt-4o"}}), {.cancel = &cancel});
  auto r = s->complete(ask("coder", "x"));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.kind(), ErrorKind::cancelled);
}

TEST(Session, ParallelCallsAreAllRecorded) {
  Harness h;
  auto s = h.open(config_with({{"default", "openai:gpt-4o"}}));
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 10; ++i)
        if (s->complete(ask("coder", fmt::format("{}-{}", t, i)))) ++ok;
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok.load(), 80);
  auto t = lines(s->transcript_path());
  ASSERT_EQ(t.size(), 80u);
  std::set<int> numbers;
  for (const auto& l : t) numbers.insert(l["call"].get<int>());
  EXPECT_EQ(numbers.size(), 80u);
  EXPECT_EQ(*numbers.rbegin(), 80);
  auto db = store::open_store(store::store_path(h.dir.path()));
  auto usage = store::llm_usage(**db, s->id());
  ASSERT_TRUE(usage);
  EXPECT_EQ((*usage)[0].calls, 80);
  EXPECT_EQ(s->totals().calls, 80);
}

TEST(Session, ResumedSessionContinuesNumbering) {
  Harness h;
  std::string id;
  {
    auto s = h.open(config_with({{"default", "openai:gpt-4o"}}));
    id = s->id();
    ASSERT_TRUE(s->complete(ask("coder", "a")));
    ASSERT_TRUE(s->complete(ask("coder", "b")));
  }
  auto s = h.open(config_with({{"default", "openai:gpt-4o"}}), {.id = id});
  ASSERT_TRUE(s->complete(ask("coder", "c")));
  auto t = lines(s->transcript_path());
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[2]["call"], 3);
}

// A call of no run (kforge llm ping): in the store, so `kforge llm usage` counts it, but no
// sessions/<id>/ folder, which `kforge sessions` (runs only) would never list.
TEST(Session, WithoutATranscriptOnlyTheStoreRecords) {
  Harness h;
  auto s = h.open(config_with({{"default", "openai:gpt-4o"}}),
                  {.command = "kforge llm ping", .transcript = false});
  ASSERT_TRUE(s->complete(ask("ping", "pong?")));
  EXPECT_TRUE(s->transcript_path().empty());
  EXPECT_FALSE(std::filesystem::exists(h.dir.path() / "sessions"));
  auto db = store::open_store(store::store_path(h.dir.path()));
  ASSERT_TRUE(db);
  auto usage = store::llm_usage(**db, s->id());
  ASSERT_TRUE(usage);
  ASSERT_EQ(usage->size(), 1u);
  EXPECT_EQ((*usage)[0].calls, 1);
}

TEST(Session, NotRecordingWritesNothing) {
  Harness h;
  auto s = h.open(config_with({{"default", "openai:gpt-4o"}}), {.record = false});
  ASSERT_TRUE(s->complete(ask("coder", "a")));
  EXPECT_TRUE(s->transcript_path().empty());
  EXPECT_FALSE(std::filesystem::exists(h.dir.path() / "kforge.db"));
  EXPECT_EQ(s->totals().calls, 1);
}

}  // namespace
}  // namespace kforge::llm
