// replay:FILE: a session recorded with a real provider (cmd:) is replayed call by call with
// the same replies at no cost; parallel calls that arrive out of order still find their
// recording; a request that differs says which call and shows the first differing message; a
// call beyond the recording, a recorded error, and an unreadable file are reported clearly.
#include <gtest/gtest.h>

#include <fstream>

#include "kforge/llm/llm_test_util.h"
#include "kforge/llm/session.h"

namespace kforge::llm {
namespace {

using testing::TempDir;

ChatRequest ask(const std::string& role, const std::string& text) {
  ChatRequest r;
  r.agent_role = role;
  r.messages = {{"system", "You write kernels."}, {"user", text}};
  return r;
}

// Records three calls (the last one failing) with cmd:, returns the transcript.
std::filesystem::path record(const TempDir& dir) {
  LlmConfig config;
  config.models["default"] =
      "cmd:in=$(cat); case \"$in\" in *crash*) exit 2;; *tiling*) printf 'tile by 64';; *) printf "
      "'void k() {}';; esac";
  auto s = LlmSession::open(config, {.state_dir = dir.path() / "rec"});
  EXPECT_TRUE(s) << s.error().message;
  EXPECT_EQ((*s)->complete(ask("planner", "plan the tiling"))->text, "tile by 64");
  EXPECT_EQ((*s)->complete(ask("coder", "write the kernel"))->text, "void k() {}");
  EXPECT_FALSE((*s)->complete(ask("debugger", "crash")));
  return (*s)->transcript_path();
}

std::unique_ptr<LlmSession> replayer(const TempDir& dir, const std::filesystem::path& transcript) {
  auto s = LlmSession::open(
      LlmConfig{}, {.model = "replay:" + transcript.string(), .state_dir = dir.path() / "replay"});
  EXPECT_TRUE(s) << s.error().message;
  return std::move(*s);
}

TEST(Replay, ServesTheRecordedReplies) {
  TempDir dir;
  auto transcript = record(dir);
  auto s = replayer(dir, transcript);
  std::string streamed;
  StreamCallback cb = [&](const StreamDelta& d) { streamed += d.text; };
  auto a = s->complete(ask("planner", "plan the tiling"), &cb);
  ASSERT_TRUE(a) << a.error().message;
  EXPECT_EQ(a->text, "tile by 64");
  EXPECT_EQ(streamed, a->text);
  EXPECT_EQ(a->provider, "replay");
  EXPECT_EQ(a->cost_usd, 0);
  auto b = s->complete(ask("coder", "write the kernel"));
  ASSERT_TRUE(b);
  EXPECT_EQ(b->text, "void k() {}");
  auto c = s->complete(ask("debugger", "crash"));
  ASSERT_FALSE(c);
  EXPECT_EQ(c.kind(), ErrorKind::server);  // the recorded failure, replayed
  EXPECT_NE(c.error().message.find("recorded error"), std::string::npos) << c.error().message;
  auto d = s->complete(ask("coder", "one more"));
  ASSERT_FALSE(d);
  EXPECT_EQ(d.kind(), ErrorKind::diverged);
  EXPECT_NE(
      d.error().message.find("call 4 (coder) has no recorded reply: the recording holds 3 calls"),
      std::string::npos)
      << d.error().message;
}

TEST(Replay, OutOfOrderCallsFindTheirRecording) {
  TempDir dir;
  auto s = replayer(dir, record(dir));
  auto b = s->complete(ask("coder", "write the kernel"));
  ASSERT_TRUE(b) << b.error().message;
  EXPECT_EQ(b->text, "void k() {}");
  auto a = s->complete(ask("planner", "plan the tiling"));
  ASSERT_TRUE(a) << a.error().message;
  EXPECT_EQ(a->text, "tile by 64");
}

TEST(Replay, DivergenceNamesTheCallAndShowsTheFirstDifference) {
  TempDir dir;
  auto s = replayer(dir, record(dir));
  ASSERT_TRUE(s->complete(ask("planner", "plan the tiling")));
  auto r = s->complete(ask("coder", "write the fast kernel"));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.kind(), ErrorKind::diverged);
  std::string m = r.error().message;
  EXPECT_NE(m.find("call 2 (coder) diverged from the recording (recorded call 2, coder): message 2 "
                   "(user) differs at character 11"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("recorded: \"write the kernel\""), std::string::npos) << m;
  EXPECT_NE(m.find("now:      \"write the fast kernel\""), std::string::npos) << m;
}

TEST(Replay, ExtraMessageIsShown) {
  TempDir dir;
  auto s = replayer(dir, record(dir));
  auto req = ask("planner", "plan the tiling");
  req.messages.push_back({"user", "and vectorize"});
  auto r = s->complete(req);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("the request has 3 messages, the recording 2; message 3 (user) "
                                   "is new: \"and vectorize\""),
            std::string::npos)
      << r.error().message;
}

TEST(Replay, UnreadableTranscriptIsAConfigErrorWithTheLine) {
  TempDir dir;
  auto bad = dir.path() / "bad.jsonl";
  std::ofstream(bad) << R"({"messages": [], "text": "a"})"
                     << "\n"
                     << "not json\n";
  auto s =
      LlmSession::open(LlmConfig{}, {.model = "replay:" + bad.string(), .state_dir = dir.path()});
  ASSERT_TRUE(s);
  auto r = (*s)->complete(ask("planner", "x"));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.kind(), ErrorKind::config);
  EXPECT_NE(r.error().message.find(bad.string() + ":2: not valid JSON"), std::string::npos)
      << r.error().message;
  auto missing = LlmSession::open(LlmConfig{},
                                  {.model = "replay:/nonexistent.jsonl", .state_dir = dir.path()});
  auto r2 = (*missing)->complete(ask("planner", "x"));
  ASSERT_FALSE(r2);
  EXPECT_NE(r2.error().message.find("/nonexistent.jsonl: cannot read"), std::string::npos)
      << r2.error().message;
}

}  // namespace
}  // namespace kforge::llm
