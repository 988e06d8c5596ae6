// cmd:COMMAND: the program gets the request as JSON on stdin (role, messages, temperature,
// max_tokens) and its stdout is the reply (also streamed to the callback); a failing program is
// a server error carrying its stderr; a slow one times out; a set cancellation flag stops the
// call before it starts, and stops a running program (Ctrl-C) long before its timeout.
#include <gtest/gtest.h>

#include <thread>

#include "kforge/llm/llm_test_util.h"
#include "kforge/llm/model_client.h"

namespace kforge::llm {
namespace {

std::unique_ptr<ModelClient> cmd(
    const std::string& command, std::chrono::milliseconds timeout = std::chrono::milliseconds(5000),
    const std::atomic<bool>* cancel = nullptr) {
  ClientOptions o;
  o.timeout = timeout;
  o.cancel = cancel;
  auto c = make_client(*parse_model_spec("cmd:" + command), o);
  EXPECT_TRUE(c);
  return std::move(*c);
}

ChatRequest request() {
  ChatRequest r;
  r.agent_role = "coder";
  r.messages = {{"system", "Be brief."}, {"user", "Write \"hi\"\nplease"}};
  r.temperature = 0.5;
  r.max_tokens = 64;
  return r;
}

TEST(CmdClient, RequestOnStdinReplyOnStdout) {
  auto r = cmd("cat")->complete(request());
  ASSERT_TRUE(r) << r.error().message;
  auto j = nlohmann::json::parse(r->text);
  EXPECT_EQ(j["role"], "coder");
  EXPECT_EQ(j["messages"][1]["role"], "user");
  EXPECT_EQ(j["messages"][1]["content"], "Write \"hi\"\nplease");
  EXPECT_DOUBLE_EQ(j["temperature"].get<double>(), 0.5);
  EXPECT_EQ(j["max_tokens"], 64);
  EXPECT_EQ(r->provider, "cmd");
  EXPECT_EQ(r->model, "cat");
  EXPECT_EQ(r->finish_reason, "stop");
}

TEST(CmdClient, StreamsTheReplyToTheCallback) {
  std::string seen;
  StreamCallback cb = [&](const StreamDelta& d) { seen += d.text; };
  auto r = cmd("printf 'int x;'")->complete(request(), &cb);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->text, "int x;");
  EXPECT_EQ(seen, "int x;");
}

TEST(CmdClient, NonZeroExitIsAProviderErrorWithStderr) {
  auto r = cmd("echo partial; echo 'model not loaded' >&2; exit 3")->complete(request());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.kind(), ErrorKind::server);
  EXPECT_EQ(
      r.error().message,
      "cmd `echo partial; echo 'model not loaded' >&2; exit 3`: exit status 3: model not loaded");
}

TEST(CmdClient, SlowProgramTimesOut) {
  auto r = cmd("sleep 5", std::chrono::milliseconds(200))->complete(request());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.kind(), ErrorKind::timeout);
}

TEST(CmdClient, CancelledBeforeStarting) {
  std::atomic<bool> cancel{true};
  auto r = cmd("cat", std::chrono::milliseconds(1000), &cancel)->complete(request());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.kind(), ErrorKind::cancelled);
}

TEST(CmdClient, CancellingStopsARunningProgram) {
  std::atomic<bool> cancel{false};
  std::thread interrupter([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    cancel = true;
  });
  auto start = std::chrono::steady_clock::now();
  // The program would answer after 60 s, the timeout is 120 s: only the flag can end it sooner.
  auto r =
      cmd("sleep 60; echo late", std::chrono::milliseconds(120000), &cancel)->complete(request());
  interrupter.join();
  ASSERT_FALSE(r);
  EXPECT_EQ(r.kind(), ErrorKind::cancelled);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
}

}  // namespace
}  // namespace kforge::llm
