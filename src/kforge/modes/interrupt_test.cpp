// Ctrl-C at each stage of a real `kforge auto` (12p_rmsnorm, ci size, the scripted model): SIGINT
// while the model is answering, while a kernel is being checked, and while the baseline is being
// timed with a two-minute budget. Each time kforge says at once that it is stopping, exits 130
// within two seconds of the signal, and has saved the run as interrupted with the step it
// stopped in (its --json summary and report.md).
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "kforge/core/fs.h"
#include "kforge/modes/cli_test_util.h"

extern char** environ;

namespace kforge::modes {
namespace {

using ::testing::HasSubstr;
using Clock = std::chrono::steady_clock;

// A kernel whose every call spins for minutes: the check is under way for as long as a test needs.
const char* kSpinning = R"(extern "C" void kernel(const float* x, const float* scale, float* y) {
  volatile unsigned long n = 0;
  while (n < 400000000000UL) n = n + 1;
  for (std::int64_t i = 0; i < task::B * task::S * task::D; ++i) y[i] = x[i] * scale[0];
}
)";

// One kforge process in the background, its output in files, so that a test can wait for a
// progress line and then send it SIGINT, as a terminal's Ctrl-C does.
class Background {
 public:
  Background(std::vector<std::string> argv, const std::vector<std::string>& env,
             const std::filesystem::path& dir)
      : out_(dir / "stdout.txt"), err_(dir / "stderr.txt") {
    std::map<std::string, std::string> vars;
    for (char** e = environ; *e; ++e) {
      std::string kv = *e;
      vars[kv.substr(0, kv.find('='))] = kv;
    }
    for (const auto& kv : env) vars[kv.substr(0, kv.find('='))] = kv;
    std::vector<std::string> envs;
    for (const auto& [k, kv] : vars) envs.push_back(kv);
    std::vector<char*> cargv, cenv;
    for (auto& a : argv) cargv.push_back(a.data());
    cargv.push_back(nullptr);
    for (auto& e : envs) cenv.push_back(e.data());
    cenv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, out_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addopen(&fa, 2, err_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addchdir_np(&fa, dir.c_str());
    if (posix_spawn(&pid_, cargv[0], &fa, nullptr, cargv.data(), cenv.data()) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&fa);
  }
  ~Background() {
    if (pid_ > 0 && !reaped_) {
      ::kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }

  bool started() const { return pid_ > 0; }
  std::string out() const { return text(out_); }
  std::string err() const { return text(err_); }

  // Waits until stderr holds `line` (false if the process ended first, or after `timeout_s`).
  bool wait_for(const std::string& line, double timeout_s) {
    const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_s);
    while (Clock::now() < deadline) {
      if (err().find(line) != std::string::npos) return true;
      if (waitpid(pid_, &status_, WNOHANG) == pid_) {
        reaped_ = true;
        return false;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }

  // Sends SIGINT, then waits (at most `timeout_s`) for the process to end; the seconds it took.
  double interrupt_and_wait(double timeout_s) {
    const auto sent = Clock::now();
    ::kill(pid_, SIGINT);
    while (!reaped_ && Clock::now() - sent < std::chrono::duration<double>(timeout_s)) {
      if (waitpid(pid_, &status_, WNOHANG) == pid_) reaped_ = true;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return std::chrono::duration<double>(Clock::now() - sent).count();
  }

  bool reaped() const { return reaped_; }
  // The exit status, or -1 when it did not exit (still running, or killed by a signal).
  int exit_code() const { return reaped_ && WIFEXITED(status_) ? WEXITSTATUS(status_) : -1; }

 private:
  static std::string text(const std::filesystem::path& p) {
    auto t = core::read_text(p);
    return t ? *t : "";
  }
  std::filesystem::path out_, err_;
  pid_t pid_ = -1;
  int status_ = 0;
  bool reaped_ = false;
};

class InterruptTest : public CliScenario {
 protected:
  std::vector<std::string> auto_argv(const std::string& budget) const {
    return {kforge(),        "auto", "12p_rmsnorm", "--size", "ci",           "--model", model(),
            "--tune-budget", "0",    "--budget",    budget,   "--iterations", "2",       "--json"};
  }

  // Starts `kforge auto`, waits for `line` on stderr, waits `settle_s` more (so that the step is
  // under way), sends SIGINT, and checks what every stage must do: said so at once, ended within
  // two seconds with status 130, and printed its --json summary, which it returns.
  nlohmann::json interrupt_at(const std::string& line, double settle_s,
                              const std::string& budget = "0.2") {
    Background kf(auto_argv(budget), env(), dir_);
    EXPECT_TRUE(kf.started());
    EXPECT_TRUE(kf.wait_for(line, 300)) << "never reached '" << line << "':\n" << kf.err();
    std::this_thread::sleep_for(std::chrono::duration<double>(settle_s));
    const double took = kf.interrupt_and_wait(30);
    EXPECT_TRUE(kf.reaped()) << "still running 30 s after SIGINT:\n" << kf.err();
    EXPECT_LT(took, 2.0) << kf.err();
    RecordProperty("seconds_after_sigint", std::to_string(took));
    std::printf("  (ended %.2f s after SIGINT)\n", took);
    EXPECT_EQ(kf.exit_code(), 130) << kf.err();
    EXPECT_THAT(kf.err(), HasSubstr("Ctrl-C again to quit at once"));
    auto j = nlohmann::json::parse(kf.out(), nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << "stdout: " << kf.out() << "\nstderr: " << kf.err();
    if (j.is_discarded()) return nlohmann::json::object();
    EXPECT_EQ(j.value("state", ""), "interrupted") << j.dump(2);
    // The run is saved: its report is written whatever the stage.
    EXPECT_TRUE(std::filesystem::exists(std::filesystem::path(j.value("dir", "")) / "report.md"))
        << j.dump(2);
    return j;
  }
};

}  // namespace

TEST_F(InterruptTest, DuringTheModelCallTheModelIsStopped) {
  script({{"latency_s", 120},
          {"planner", {rms::plan("PLAN-FAST")}},
          {"coder", {rms::block(rms::kFast)}},
          {"profiler", {rms::kProfiled}}});
  auto j = interrupt_at("iteration 1: planning", 0.5);
  EXPECT_THAT(j.value("stop_reason", ""),
              HasSubstr("interrupted (Ctrl-C) in iteration 1, while planning"));
}

TEST_F(InterruptTest, DuringTheCheckTheKernelIsStopped) {
  script({{"planner", {rms::plan("PLAN-SPIN")}},
          {"coder", {rms::block(kSpinning)}},
          {"debugger", {rms::fix(rms::kFast, "it spun")}},
          {"profiler", {rms::kProfiled}}});
  auto j = interrupt_at("iteration 1: checking", 1.0);
  EXPECT_THAT(j.value("stop_reason", ""),
              HasSubstr("interrupted (Ctrl-C) in iteration 1, while checking"));
  ASSERT_EQ(j["iterations"].size(), 1u) << j.dump(2);
  EXPECT_EQ(j["iterations"][0]["verdict"], "interrupted");
  // Nothing was asked of the debugger: a kernel stopped by Ctrl-C has nothing to fix.
  EXPECT_TRUE(prompts("debugger").empty());
}

TEST_F(InterruptTest, DuringATwoMinuteTimingTheTimingIsStopped) {
  script({{"planner", {rms::plan("PLAN-FAST")}},
          {"coder", {rms::block(rms::kFast)}},
          {"profiler", {rms::kProfiled}}});
  // The baseline is timed first, with the run's budget: two minutes, cut short. (It ends at 2000
  // pairs, about a second at the ci size since a pair costs its calls, so the signal comes soon.)
  auto j = interrupt_at("measuring the baseline", 0.5, "120");
  EXPECT_EQ(j.value("stop_reason", ""), "interrupted (Ctrl-C) while measuring the baseline");
  EXPECT_TRUE(j["iterations"].empty());
  EXPECT_TRUE(prompts("planner").empty());
}

// kforge eval: Ctrl-C while the kernel is checked stops the check, removes the evaluation's
// scratch folder (it was left behind when SIGINT killed the process) and exits 130.
TEST_F(InterruptTest, DuringAnEvalTheCheckIsStoppedAndNothingIsLeft) {
  std::ofstream(dir_ / "spin.cpp") << "#include \"kforge_task.h\"\n#include <cstdint>\n"
                                   << kSpinning;
  auto vars = env();
  vars.push_back("KFORGE_PROGRESS=1");  // the progress line says when the check is under way
  Background kf({kforge(), "eval", "12p_rmsnorm", "spin.cpp", "--size", "ci", "--json"}, vars,
                dir_);
  ASSERT_TRUE(kf.started());
  ASSERT_TRUE(kf.wait_for("checking on", 300)) << kf.err();
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const double took = kf.interrupt_and_wait(30);
  EXPECT_LT(took, 2.0) << kf.err();
  EXPECT_EQ(kf.exit_code(), 130) << kf.err();
  EXPECT_THAT(kf.err(), HasSubstr("Ctrl-C again to quit at once"));
  auto j = nlohmann::json::parse(kf.out(), nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << kf.out() << kf.err();
  EXPECT_EQ(j.value("verdict", ""), "interrupted") << j.dump(2);
  EXPECT_THAT(j.value("reason", ""), HasSubstr("while checking"));
  std::vector<std::string> left;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir_ / "state" / "tmp", ec))
    if (e.path().filename().string().rfind("eval-", 0) == 0) left.push_back(e.path().string());
  EXPECT_TRUE(left.empty()) << left.front();
}

}  // namespace kforge::modes
