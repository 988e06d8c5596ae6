// Bad surroundings a new user meets get a clear word and exit 2, not an internal error: a state
// folder kforge cannot create or write.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <thread>

#include "kforge/modes/cli_test_util.h"

namespace kforge::modes {
namespace {

using ::testing::HasSubstr;

class CliErrors : public CliScenario {};

TEST_F(CliErrors, UnusableStateFolderIsAUsageError) {
  for (const char* bad : {"/proc/kforge-nonexistent/state", "/dev/null/state"}) {
    auto r = core::run_process({kforge(), "sessions"},
                               {.timeout = std::chrono::seconds(60),
                                .cwd = dir_,
                                .extra_env = {std::string("KFORGE_DIR=") + bad}});
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.err;
    EXPECT_THAT(r.err, HasSubstr("cannot be used"));
    EXPECT_THAT(r.err, HasSubstr("set KFORGE_DIR"));
    EXPECT_THAT(r.err, ::testing::Not(HasSubstr("internal error")));
  }
  // Read-only commands need no state folder.
  auto list = core::run_process({kforge(), "list"}, {.timeout = std::chrono::seconds(60),
                                                     .cwd = dir_,
                                                     .extra_env = {"KFORGE_DIR=/dev/null/state"}});
  EXPECT_EQ(list.exit_code, 0) << list.err;
}

// A model that cannot be called (no API key) is refused before anything is built, measured or
// recorded: exit 2, the variable named, no session left behind.
TEST_F(CliErrors, MissingApiKeyIsRefusedBeforeAnyWork) {
  auto r = core::run_process(
      {kforge(), "auto", "12p_rmsnorm", "--size", "ci", "--model", "anthropic:claude-test",
       "--iterations", "1"},
      {.timeout = std::chrono::seconds(60), .cwd = dir_, .extra_env = [&] {
         auto e = env();
         e.push_back("ANTHROPIC_API_KEY=");
         e.push_back("KFORGE_CACHE_DIR=" +
                     (dir_ / "cache").string());  // a cache of its own, to see no peaks land
         return e;
       }()});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_THAT(r.err, HasSubstr("ANTHROPIC_API_KEY"));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "state" / "sessions"))
      << "a failed start left a session folder";
  EXPECT_FALSE(std::filesystem::exists(dir_ / "cache" / "peaks"))
      << "the machine was measured before the key was checked";

  // The same for `llm ping`: a request never sent leaves no session.
  auto ping =
      core::run_process({kforge(), "llm", "ping", "--model", "openai:gpt-test"},
                        {.timeout = std::chrono::seconds(60), .cwd = dir_, .extra_env = [&] {
                           auto e = env();
                           e.push_back("OPENAI_API_KEY=");
                           return e;
                         }()});
  EXPECT_EQ(ping.exit_code, 2) << ping.out << ping.err;
  EXPECT_THAT(ping.err, HasSubstr("OPENAI_API_KEY"));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "state" / "sessions"))
      << "a ping that sent nothing left a session folder";
}

// A ping that reached the model is counted by `kforge llm usage` but is no run: it leaves no
// session folder that `kforge sessions` would not list.
TEST_F(CliErrors, APingLeavesNoSessionFolder) {
  script({{"ping", {"pong"}}});
  auto ping = run({"llm", "ping", "--model", model(), "--json"});
  ASSERT_EQ(ping.exit_code, 0) << ping.out << ping.err;
  auto j = nlohmann::json::parse(ping.out, nullptr, false);
  ASSERT_TRUE(j.is_object()) << ping.out;
  EXPECT_EQ(j["reply"], "pong");
  EXPECT_FALSE(std::filesystem::exists(dir_ / "state" / "sessions"))
      << "a ping left a session folder";
  auto usage = run({"llm", "usage", j["session"].get<std::string>(), "--json"});
  ASSERT_TRUE(usage.success()) << usage.err;
  EXPECT_THAT(usage.out, HasSubstr("\"ping\""));
}

// A task whose own baseline fails its check is the suite's fault, not the command's: an internal
// error (exit 70) that says so, never a usage error (exit 2) that sends the user to fix a command
// line that was right.
TEST_F(CliErrors, ABaselineThatFailsItsOwnCheckIsAnInternalError) {
  const auto task = dir_ / "broken" / "12p_rmsnorm";  // a task's folder is named by its id
  std::filesystem::create_directories(task.parent_path());
  std::filesystem::copy(core::source_dir() / "bench" / "jaxbench" / "12p_rmsnorm", task);
  // Plain C++ that copies x to y: compiles fast, and is wrong.
  ASSERT_TRUE(core::write_atomic(task / "baseline.cpp", R"(#include "kforge_task.h"
extern "C" void kernel(const float* x, const float* scale, float* y) {
  for (std::int64_t i = 0; i < task::B * task::S * task::D; ++i) y[i] = x[i];
}
)")
                  .ok());
  script(nlohmann::json::object());  // no model call is reached
  for (const char* mode : {"hitl", "auto"}) {
    auto r =
        run({mode, task.string(), "--size", "ci", "--model", model(), "--budget", "0.2"}, "quit\n");
    EXPECT_EQ(r.exit_code, 70) << mode << ": " << r.out << r.err;
    EXPECT_THAT(r.err, HasSubstr("internal error")) << mode;
    EXPECT_THAT(r.err, HasSubstr("the baseline does not pass its own check")) << mode;
  }
}

// Progress goes to stderr in a pipe as on a terminal, each line with the seconds since the start;
// --quiet (before or after the command's name) silences it.
TEST_F(CliErrors, ProgressShowsInAPipeAndQuietSilencesIt) {
  const std::string kernel =
      (core::source_dir() / "bench" / "jaxbench" / "12p_rmsnorm" / "expert.cpp").string();
  auto no_progress_override = [&] {
    auto e = env();
    e.erase(
        std::remove_if(e.begin(), e.end(),
                       [](const std::string& v) { return v.rfind("KFORGE_PROGRESS=", 0) == 0; }),
        e.end());
    e.push_back("KFORGE_PROGRESS=");  // unset in effect: the default applies
    return e;
  }();
  auto loud = core::run_process(
      {kforge(), "eval", "12p_rmsnorm", kernel, "--size", "ci", "--no-time"},
      {.timeout = std::chrono::seconds(300), .cwd = dir_, .extra_env = no_progress_override});
  ASSERT_TRUE(loud.success()) << loud.err;
  EXPECT_THAT(loud.err, ::testing::ContainsRegex(
                            "… \\[ *[0-9]+\\.[0-9] s\\] checking on 3 secret input sets"));
  // The table says where the kernel ran (the evaluation's CPUs, cpu_choice.h).
  EXPECT_THAT(loud.out,
              ::testing::ContainsRegex("\\(size ci, [0-9]+ threads? on CPUs? [0-9]+(,[0-9]+)*\\)"));
  for (auto args : {std::vector<std::string>{kforge(), "eval", "12p_rmsnorm", kernel, "--size",
                                             "ci", "--no-time", "--quiet"},
                    std::vector<std::string>{kforge(), "--quiet", "eval", "12p_rmsnorm", kernel,
                                             "--size", "ci", "--no-time"}}) {
    auto quiet = core::run_process(
        args,
        {.timeout = std::chrono::seconds(300), .cwd = dir_, .extra_env = no_progress_override});
    ASSERT_TRUE(quiet.success()) << quiet.err;
    EXPECT_THAT(quiet.err, ::testing::Not(HasSubstr("…")));
  }
}

// kforge list --tag: only the tasks that have every tag given.
TEST_F(CliErrors, ListFiltersByTag) {
  auto r = run({"list", "--tag", "attention", "--json"});
  ASSERT_TRUE(r.success()) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_GE(j.size(), 5u);
  for (const auto& t : j)
    EXPECT_NE(std::find(t["tags"].begin(), t["tags"].end(), "attention"), t["tags"].end())
        << t["id"];
  auto none = nlohmann::json::parse(
      run({"list", "--tag", "attention", "--tag", "no-such-tag", "--json"}).out);
  EXPECT_TRUE(none.empty());
}

// kforge compare: per task the ratio of speedups, whether the intervals overlap, verdict changes.
TEST_F(CliErrors, CompareTwoBenchResults) {
  auto task = [](const char* id, const char* verdict, double s, double lo, double hi) {
    return nlohmann::json{
        {"task", id},
        {"status", "evaluated"},
        {"evaluation",
         {{"task", id}, {"verdict", verdict}, {"speedup", s}, {"speedup_ci95", {lo, hi}}}}};
  };
  nlohmann::json a = {
      {"tasks",
       {task("t_faster", "correct", 1.0, 0.98, 1.02), task("t_noise", "correct", 2.0, 1.9, 2.1),
        task("t_broke", "correct", 1.5, 1.4, 1.6)}}};
  nlohmann::json b = {
      {"tasks",
       {task("t_faster", "correct", 1.5, 1.45, 1.55), task("t_noise", "correct", 2.05, 1.95, 2.15),
        task("t_broke", "incorrect", 0, 0, 0)}}};
  ASSERT_TRUE(core::write_atomic(dir_ / "a.json", a.dump()).ok());
  ASSERT_TRUE(core::write_atomic(dir_ / "b.json", b.dump()).ok());
  auto r = run({"compare", (dir_ / "a.json").string(), (dir_ / "b.json").string(), "--json"});
  // correct → incorrect is a regression: the default rule fires, for a script to see.
  ASSERT_EQ(r.exit_code, 1) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["failures"], nlohmann::json::array({"t_broke: correct → incorrect"}));
  EXPECT_EQ(j["exit_status"], 1);
  std::map<std::string, nlohmann::json> rows;
  for (const auto& row : j["tasks"]) rows[row["task"]] = row;
  EXPECT_NEAR(rows["t_faster"]["ratio"].get<double>(), 1.5, 1e-9);
  EXPECT_EQ(rows["t_faster"]["outcome"], "B faster");
  EXPECT_EQ(rows["t_noise"]["outcome"], "within noise");
  EXPECT_TRUE(rows["t_broke"]["ratio"].is_null());
  EXPECT_EQ(rows["t_broke"]["outcome"], "correct → incorrect");
  EXPECT_EQ(j["summary"]["compared"], 2);
  auto human = run({"compare", (dir_ / "a.json").string(), (dir_ / "b.json").string()});
  EXPECT_EQ(human.exit_code, 1) << human.err;
  EXPECT_THAT(human.out, HasSubstr("regression (1 task): t_broke: correct → incorrect; exit 1"));
  auto lenient = run(
      {"compare", (dir_ / "a.json").string(), (dir_ / "b.json").string(), "--fail-on", "never"});
  EXPECT_EQ(lenient.exit_code, 0) << lenient.err;
  // The same pair without the broken task: B is only faster or within noise.
  nlohmann::json a2 = a, b2 = b;
  a2["tasks"].erase(2);
  b2["tasks"].erase(2);
  ASSERT_TRUE(core::write_atomic(dir_ / "a2.json", a2.dump()).ok());
  ASSERT_TRUE(core::write_atomic(dir_ / "b2.json", b2.dump()).ok());
  auto fine = run({"compare", (dir_ / "a2.json").string(), (dir_ / "b2.json").string()});
  EXPECT_EQ(fine.exit_code, 0) << fine.out << fine.err;
  auto bad = run({"compare", (dir_ / "a.json").string(), (dir_ / "missing.json").string()});
  EXPECT_EQ(bad.exit_code, 2);
  auto bad_rule = run({"compare", (dir_ / "a.json").string(), (dir_ / "b.json").string(),
                       "--fail-on", "sometimes"});
  EXPECT_EQ(bad_rule.exit_code, 2);
}

// Ctrl-C during a model call: the run stops cleanly (its state saved) and kforge exits 130, as an
// interrupted command does in a shell.
TEST_F(CliErrors, InterruptedRunExits130) {
  script({{"latency_s", 30}, {"planner", {rms::plan("never delivered")}}});
  std::vector<std::string> args = {kforge(),  "auto",  "12p_rmsnorm",  "--size", "ci",
                                   "--model", model(), "--iterations", "1"};
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    if (chdir(dir_.c_str()) != 0) _exit(126);
    for (const auto& kv : env()) putenv(strdup(kv.c_str()));
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  // Wait until the planner has been asked (the scripted model logs each request as it arrives).
  // The first run builds the libtorch baseline: over 120 s was seen at load 11 on two cores.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(480);
  while (prompts("planner").empty() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  if (prompts("planner").empty()) {
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
    FAIL() << "the run never asked the planner";
  }
  kill(pid, SIGINT);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 130);
}

}  // namespace
}  // namespace kforge::modes
