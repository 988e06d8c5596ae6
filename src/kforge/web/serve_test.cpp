// kforge serve over HTTP, the real binary on a free port: files outside the page are never
// served (path traversal in every spelling), other origins cannot change state, malformed
// requests get 4xx and the server lives on, a bind beyond loopback needs --allow-remote and then
// the token on every request, and Ctrl-C stops it cleanly (exit 130).
#include <gmock/gmock.h>

#include "kforge/store/process_owner.h"
#include "kforge/web/web_test_util.h"

namespace kforge::web {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class ServeTest : public ServeScenario {};

}  // namespace

TEST_F(ServeTest, ServesNoFileOutsideThePage) {
  ASSERT_TRUE(core::write_atomic(dir_ / "state" / "secret.txt", "SECRET-IN-STATE").ok());
  ASSERT_FALSE(start_serve().empty()) << serve_->output();
  ASSERT_EQ(curl("/").first, 200);
  ASSERT_EQ(curl("/static/app.js").first, 200);
  for (const std::string path :
       {"/static/../../../../etc/passwd", "/static/..%2F..%2F..%2F..%2Fetc%2Fpasswd",
        "/static/%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd", "/../../../../etc/passwd",
        "/static/../state/secret.txt", "/state/secret.txt", "/secret.txt", "/kforge.db",
        "/static/..%2fstate%2fkforge.db", "/api/runs/..%2F..%2Fetc%2Fpasswd",
        "/api/runs/../../etc/passwd/graph.svg", "/static//etc/passwd", "/static/app.js%00.txt",
        "/static/%252e%252e/etc/passwd"}) {
    auto [status, body] = curl(path);
    EXPECT_GE(status, 400) << path;
    EXPECT_LT(status, 500) << path;
    EXPECT_THAT(body, Not(HasSubstr("root:"))) << path;
    EXPECT_THAT(body, Not(HasSubstr("SECRET-IN-STATE"))) << path;
    EXPECT_THAT(body, Not(HasSubstr("SQLite format"))) << path;
  }
  // A hitl resume names a session folder: an id that climbs out is refused before any read.
  auto [status, body] = post("/api/hitl", {{"resume", "../../etc"}});
  EXPECT_EQ(status, 400) << body;
}

TEST_F(ServeTest, AnotherOriginCannotChangeState) {
  ASSERT_FALSE(start_serve().empty()) << serve_->output();
  // A page of another site posting to the server: refused before any handler runs.
  auto [status, body] =
      post("/api/hitl", {{"task", "12p_rmsnorm"}}, {"-H", "Origin: http://evil.example"});
  EXPECT_EQ(status, 403) << body;
  EXPECT_THAT(body, HasSubstr("evil.example"));
  // A form post (no preflight): not JSON, refused.
  auto form =
      curl("/api/hitl", {"-X", "POST", "-H", "Origin: " + base(), "-d", "task=12p_rmsnorm"});
  EXPECT_EQ(form.first, 415) << form.second;
  // DNS rebinding: another name for 127.0.0.1.
  auto rebound = curl("/api/sessions", {"-H", "Host: evil.example:" + std::to_string(port_)});
  EXPECT_EQ(rebound.first, 403) << rebound.second;
  // The server's own origin is fine (the task is unknown: an error from the set-up, not a refusal).
  auto own = post("/api/hitl", {{"task", "no_such_task"}}, {"-H", "Origin: " + base()});
  EXPECT_EQ(own.first, 422) << own.second;
  EXPECT_THAT(own.second, HasSubstr("no_such_task"));
  // No session was started by any of it.
  auto sessions = nlohmann::json::parse(curl("/api/sessions").second, nullptr, false);
  ASSERT_TRUE(sessions.is_array());
  EXPECT_TRUE(sessions.empty()) << sessions.dump();
}

TEST_F(ServeTest, MalformedRequestsGet4xxAndTheServerLivesOn) {
  ASSERT_FALSE(start_serve().empty()) << serve_->output();
  EXPECT_EQ(post("/api/hitl", "not an object").first, 400);
  EXPECT_EQ(
      curl("/api/hitl", {"-X", "POST", "-H", "Content-Type: application/json", "-d", "{bad"}).first,
      400);
  EXPECT_EQ(post("/api/hitl", nlohmann::json::object()).first, 400);
  EXPECT_EQ(post("/api/hitl/nosuch/command", {{"line", "plan"}}).first, 404);
  EXPECT_EQ(post("/api/hitl/nosuch/answer", {{"gate", "x"}}).first, 404);
  EXPECT_EQ(curl("/api/hitl/nosuch?since=abc").first, 404);
  EXPECT_EQ(curl("/api/runs/nosuch").first, 404);
  EXPECT_EQ(curl("/api/runs/nosuch/graph.svg").first, 404);
  EXPECT_EQ(curl("/no/such/page").first, 404);
  // A broken request line, raw.
  auto raw = core::run_process(
      {"bash", "-c",
       "exec 3<>/dev/tcp/127.0.0.1/" + std::to_string(port_) +
           "; printf 'GARBAGE \\x01\\x02 HTTP/9\\r\\n\\r\\n' >&3; timeout 5 cat <&3"},
      {.timeout = std::chrono::seconds(10)});
  EXPECT_THAT(raw.out, HasSubstr("HTTP/1.1 4"));
  EXPECT_EQ(curl("/api/sessions").first, 200) << "the server died";
  EXPECT_FALSE(serve_->ended());
}

TEST_F(ServeTest, BeyondLoopbackNeedsAllowRemoteAndTheToken) {
  auto refused = run({"serve", "--host", "0.0.0.0", "--port", "0"});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_THAT(refused.err, HasSubstr("--allow-remote"));

  auto url = start_serve({"--host", "0.0.0.0", "--allow-remote"});
  ASSERT_FALSE(url.empty()) << serve_->output();
  auto at = url.find("?token=");
  ASSERT_NE(at, std::string::npos) << url;
  std::string token = url.substr(at + 7);
  EXPECT_EQ(token.size(), 32u);
  EXPECT_THAT(serve_->output(), HasSubstr("every request must carry the token " + token));
  for (const std::string path : {"/", "/static/app.js", "/api/sessions"}) {
    EXPECT_EQ(curl(path).first, 401) << path;
    EXPECT_EQ(curl(path + "?token=" + std::string(32, '0')).first, 401) << path;
    EXPECT_EQ(curl(path, {"-H", "Authorization: Bearer " + token.substr(0, 31) + "x"}).first, 401);
    EXPECT_EQ(curl(path, {"-H", "Authorization: Bearer " + token}).first, 200) << path;
    EXPECT_EQ(curl(path, {"-H", "Cookie: kforge_token=" + token}).first, 200) << path;
  }
  // The address with the token sets the cookie the page's own requests carry.
  auto headers =
      core::run_process({"curl", "-s", "-D", "-", "-o", "/dev/null", base() + "/?token=" + token});
  EXPECT_THAT(headers.out, HasSubstr("Set-Cookie: kforge_token=" + token));
  EXPECT_THAT(headers.out, HasSubstr("SameSite=Strict"));
}

TEST_F(ServeTest, AHitlSessionOpenInATerminalIsNotResumedInThePage) {
  script({{"planner", {"unused"}}});
  // A terminal session that waits for its next command (stdin stays open).
  BackgroundProcess terminal(
      {"bash", "-c",
       "sleep 60 | '" + kforge() + "' hitl 12p_rmsnorm --size ci --budget 0.2 --model '" + model() +
           "'"},
      dir_, env(), dir_ / "terminal.log");
  ASSERT_TRUE(terminal.wait_for_output("Type `help`", std::chrono::seconds(120)))
      << terminal.output();
  ASSERT_FALSE(start_serve().empty()) << serve_->output();
  auto list = nlohmann::json::parse(curl("/api/sessions").second, nullptr, false);
  ASSERT_TRUE(list.is_array() && list.size() == 1u) << list.dump();
  std::string id = list[0]["session"];
  EXPECT_EQ(list[0]["state"], "running");
  auto [status, body] = post("/api/hitl", {{"resume", id}});
  EXPECT_EQ(status, 422) << body;
  EXPECT_THAT(body, HasSubstr("open in another kforge process"));
}

// A finished run's event stream says "end" after its state and closes (a screenshot or `curl -N`
// of its page is not kept waiting); a running run's stays open.
TEST_F(ServeTest, TheEventStreamOfAnEndedRunCloses) {
  {
    auto db = store::open_store(store::store_path(dir_ / "state"));
    ASSERT_TRUE(db.ok()) << db.error().message;
    for (const auto* id : {"20260101-000000-done", "20260101-000100-live"})
      ASSERT_TRUE(store::insert_session(**db, {id, "2026-01-01T00:00:00Z", "test", "/"}).ok());
    store::RunRecord done{"20260101-000000-done", "auto", "12p_rmsnorm", "ci",
                          store::RunState::finished};
    store::RunRecord live{"20260101-000100-live", "search", "8p_gemm", "ci",
                          store::RunState::running};
    live.owner = store::current_process_owner();  // this test process: alive
    ASSERT_TRUE(store::insert_run(**db, done).ok());
    ASSERT_TRUE(store::insert_run(**db, live).ok());
  }
  ASSERT_FALSE(start_serve().empty()) << serve_->output();
  const auto start = std::chrono::steady_clock::now();
  auto ended = curl("/api/runs/20260101-000000-done/events", {"-N"});
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10))
      << "the stream of a finished run stayed open";
  EXPECT_EQ(ended.first, 200);
  EXPECT_THAT(ended.second, HasSubstr("event: change"));
  EXPECT_THAT(ended.second, HasSubstr("event: end\ndata: {\"state\":\"finished\"}"));
  EXPECT_LT(ended.second.find("event: change"), ended.second.find("event: end"));
  auto running = curl("/api/runs/20260101-000100-live/events", {"-N", "--max-time", "2"});
  EXPECT_THAT(running.second, HasSubstr("event: change"));
  EXPECT_THAT(running.second, ::testing::Not(HasSubstr("event: end")));
}

TEST_F(ServeTest, CtrlCStopsItCleanly) {
  script({{"planner", {modes::rms::plan("PLAN-WAITING")}}});
  ASSERT_FALSE(start_serve({"--model", model(), "--budget", "0.2"}).empty()) << serve_->output();
  ASSERT_EQ(curl("/api/sessions").first, 200);
  // A hitl session waiting at a question when the server is stopped.
  auto started = post("/api/hitl", {{"task", "12p_rmsnorm"}, {"size", "ci"}});
  ASSERT_EQ(started.first, 200) << started.second;
  std::string id = nlohmann::json::parse(started.second)["run_id"];
  ASSERT_EQ(post("/api/hitl/" + id + "/command", {{"line", "plan"}}).first, 200);
  bool asked = false;
  for (int i = 0; i < 600 && !asked; ++i) {
    auto snap = nlohmann::json::parse(curl("/api/hitl/" + id).second, nullptr, false);
    asked = snap.is_object() && snap["gate"].is_object();
    if (!asked) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_TRUE(asked) << curl("/api/hitl/" + id).second;
  // A second command while one runs is refused, not queued behind it.
  EXPECT_EQ(post("/api/hitl/" + id + "/command", {{"line", "check"}}).first, 409);
  EXPECT_EQ(serve_->stop(SIGINT, std::chrono::seconds(20)), 130) << serve_->output();
  EXPECT_THAT(serve_->output(), HasSubstr("kforge serve: stopped"));
  EXPECT_NE(curl("/api/sessions").first, 200);
  // The session was saved and left finished: it resumes, from the terminal here.
  auto resumed = run({"hitl", "--resume", id}, "status\nquit\n");
  EXPECT_TRUE(resumed.success()) << resumed.out << resumed.err;
  EXPECT_THAT(resumed.out, HasSubstr("resumed session " + id));
}

}  // namespace kforge::web
