// Results kept in the store, through the real kforge binary (ci size, a private suite of two
// copies of 12p_rmsnorm: a_rms with an honest kernel, b_rms with one that spins in its check).
// A bench is one result: Ctrl-C while b_rms is checked keeps a_rms's row and marks the result
// interrupted; `kforge results` lists it (filters, --json) and shows its rows; --resume refuses
// settings that differ and then runs only the task without a row; `kforge compare` takes result
// ids, with its --fail-on rules; `kforge eval` keeps a result of one row.
#include <fcntl.h>
#include <gmock/gmock.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <chrono>
#include <map>
#include <thread>

#include "kforge/core/fs.h"
#include "kforge/modes/cli_test_util.h"

extern char** environ;

namespace kforge::modes {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using Clock = std::chrono::steady_clock;

// Each call of the check spins for minutes: the task is under way for as long as the test needs.
const char* kSpinning = R"(#include "kforge_task.h"
#include <cstdint>
extern "C" void kernel(const float* x, const float* scale, float* y) {
  volatile unsigned long n = 0;
  while (n < 400000000000UL) n = n + 1;
  for (std::int64_t i = 0; i < task::B * task::S * task::D; ++i) y[i] = x[i] * scale[0];
}
)";

std::string honest() {
  return "#include \"kforge_task.h\"\n#include <cmath>\n" + std::string(rms::kFast);
}

// kforge in the background with its stderr in a file, to be sent SIGINT as Ctrl-C would.
class Background {
 public:
  Background(std::vector<std::string> argv, const std::vector<std::string>& env,
             const std::filesystem::path& dir)
      : err_(dir / "bench-stderr.txt") {
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
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
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
  std::string err() const {
    auto t = core::read_text(err_);
    return t ? *t : "";
  }
  bool wait_for(const std::string& line, double timeout_s) {
    const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_s);
    while (Clock::now() < deadline && pid_ > 0) {
      if (err().find(line) != std::string::npos) return true;
      if (waitpid(pid_, &status_, WNOHANG) == pid_) {
        reaped_ = true;
        return false;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }
  // SIGINT, then the exit status (-1 if it did not exit within `timeout_s`).
  int interrupt(double timeout_s) {
    ::kill(pid_, SIGINT);
    const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_s);
    while (!reaped_ && Clock::now() < deadline) {
      if (waitpid(pid_, &status_, WNOHANG) == pid_) reaped_ = true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return reaped_ && WIFEXITED(status_) ? WEXITSTATUS(status_) : -1;
  }

 private:
  std::filesystem::path err_;
  pid_t pid_ = -1;
  int status_ = 0;
  bool reaped_ = false;
};

class ResultsCli : public CliScenario {
 protected:
  void SetUp() override {
    CliScenario::SetUp();
    std::filesystem::create_directories(suite());
    for (const char* id : {"a_rms", "b_rms"}) {
      const auto task = suite() / id;
      std::filesystem::copy(core::source_dir() / "bench" / "jaxbench" / "12p_rmsnorm", task,
                            std::filesystem::copy_options::recursive);
      auto toml = core::read_text(task / "task.toml");
      ASSERT_TRUE(toml);
      std::string text = *toml;
      text.replace(text.find("\"12p_rmsnorm\""), 13, std::string("\"") + id + "\"");
      ASSERT_TRUE(core::write_atomic(task / "task.toml", text).ok());
    }
    std::filesystem::create_directories(kernels());
    ASSERT_TRUE(core::write_atomic(kernels() / "a_rms.cpp", honest()).ok());
    ASSERT_TRUE(core::write_atomic(kernels() / "b_rms.cpp", kSpinning).ok());
  }
  std::filesystem::path suite() const { return dir_ / "suite"; }
  std::filesystem::path kernels() const { return dir_ / "kernels"; }
  std::vector<std::string> bench_args() const {
    return {"bench",    "--suite", suite().string(), "--impl", kernels().string(), "--size", "ci",
            "--budget", "0.2",     "--retries",      "0"};
  }
  nlohmann::json json_of(const std::vector<std::string>& args) {
    auto r = run(args);
    EXPECT_TRUE(r.success()) << r.describe() << "\n" << r.err;
    auto j = nlohmann::json::parse(r.out, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << r.out;
    return j;
  }
};

}  // namespace

TEST_F(ResultsCli, InterruptedBenchIsKeptListedResumedAndComparedById) {
  // Ctrl-C while b_rms spins in its check: a_rms's row is kept.
  {
    auto argv = bench_args();
    argv.insert(argv.begin(), kforge());
    auto env_vars = env();
    env_vars.push_back("KFORGE_PROGRESS=1");
    Background bench(argv, env_vars, dir_);
    ASSERT_TRUE(bench.wait_for("[ 1/2] a_rms", 300)) << bench.err();
    EXPECT_THAT(bench.err(), Not(HasSubstr("b_rms ")));
    std::this_thread::sleep_for(std::chrono::milliseconds(500));  // b_rms under way
    EXPECT_EQ(bench.interrupt(30), 130) << bench.err();
    EXPECT_THAT(bench.err(), HasSubstr("kept in result 1; go on with: kforge bench --resume 1"));
  }
  auto listed = json_of({"results", "--json"});
  ASSERT_EQ(listed.size(), 1u) << listed.dump(2);
  EXPECT_EQ(listed[0]["id"], 1);
  EXPECT_EQ(listed[0]["command"], "bench");
  EXPECT_EQ(listed[0]["state"], "interrupted");
  EXPECT_EQ(listed[0]["summary"]["rows"], 1);
  auto one = json_of({"results", "1", "--json"});
  ASSERT_EQ(one["results"].size(), 1u) << one.dump(2);
  const auto& a = one["results"][0];
  EXPECT_EQ(a["task"], "a_rms");
  EXPECT_EQ(a["verdict"], "correct");
  EXPECT_EQ(a["role"], "candidate");
  EXPECT_EQ(a["partner"], "libtorch");
  EXPECT_EQ(a["size"], "ci");
  EXPECT_THAT(a["kernel"].get<std::string>(), HasSubstr("kernels/a_rms.cpp"));
  EXPECT_FALSE(one["machine"]["hostname"].get<std::string>().empty());
  EXPECT_GT(one["machine"]["threads"].get<int>(), 0);
  EXPECT_FALSE(one["git_sha"].get<std::string>().empty());
  EXPECT_EQ(one["target"], "cpp");
  EXPECT_EQ(one["rows"][0]["schema"], "kforge.result_row/2");  // the full row, as bench --json's
  EXPECT_EQ(one["tasks"][0]["evaluation"]["verdict"], "correct");
  const std::string a_timestamp = one["rows"][0]["timestamp"];
  auto shown = run({"results", "1"});
  ASSERT_TRUE(shown.success()) << shown.err;
  EXPECT_THAT(shown.out, HasSubstr("a_rms"));
  EXPECT_THAT(shown.out, HasSubstr("kforge bench --resume 1"));

  // A resume runs with the set's own settings: one given that differs is refused, naming it.
  auto refused = run({"bench", "--resume", "1", "--size", "cpu"});
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_THAT(refused.err, HasSubstr("--size cpu (the set was run with ci)"));
  auto missing = run({"bench", "--resume", "99"});
  EXPECT_EQ(missing.exit_code, 2) << missing.err;
  EXPECT_THAT(missing.err, HasSubstr("no such result"));

  // b_rms fixed; the resume runs it alone and shows the whole set.
  ASSERT_TRUE(core::write_atomic(kernels() / "b_rms.cpp", honest()).ok());
  auto argv = bench_args();
  argv.insert(argv.end(), {"--resume", "1", "--json"});
  auto env_vars = env();
  env_vars.push_back("KFORGE_PROGRESS=1");
  argv.insert(argv.begin(), kforge());
  auto resumed = core::run_process(
      argv, {.timeout = std::chrono::seconds(600), .cwd = dir_, .extra_env = env_vars});
  ASSERT_TRUE(resumed.success()) << resumed.describe() << "\n" << resumed.err;
  EXPECT_THAT(resumed.err, HasSubstr("result 1: 1 kept, 1 to run"));
  EXPECT_THAT(resumed.err, HasSubstr("[ 1/1] b_rms"));
  EXPECT_THAT(resumed.err, Not(HasSubstr("a_rms")));
  auto whole = nlohmann::json::parse(resumed.out);
  EXPECT_EQ(whole["result_id"], 1);
  ASSERT_EQ(whole["tasks"].size(), 2u);
  EXPECT_EQ(whole["tasks"][0]["task"], "a_rms");
  EXPECT_EQ(whole["tasks"][1]["task"], "b_rms");
  EXPECT_EQ(whole["rows"][0]["timestamp"], a_timestamp);  // a_rms's row as it was kept
  EXPECT_EQ(whole["summary"]["correct"], 2);
  one = json_of({"results", "1", "--json"});
  EXPECT_EQ(one["state"], "finished");
  EXPECT_EQ(one["summary"]["correct"], 2);

  // eval keeps a result of one row.
  auto eval = run({"eval", (suite() / "a_rms").string(), (kernels() / "a_rms.cpp").string(),
                   "--size", "ci", "--no-time"});
  ASSERT_TRUE(eval.success()) << eval.err;
  auto evals = json_of({"results", "--command", "eval", "--json"});
  ASSERT_EQ(evals.size(), 1u);
  EXPECT_EQ(evals[0]["id"], 2);
  EXPECT_EQ(evals[0]["task"], "a_rms");
  EXPECT_EQ(json_of({"results", "--task", "b_rms", "--json"}).size(), 1u);
  EXPECT_EQ(json_of({"results", "--limit", "1", "--json"})[0]["id"], 2);  // newest first

  // compare takes ids (and keeps its rules): the eval lacks b_rms.
  auto same = json_of({"compare", "1", "1", "--json"});
  EXPECT_EQ(same["tasks"].size(), 2u);
  EXPECT_THAT(same["a_source"].get<std::string>(), HasSubstr("result 1: kforge bench"));
  auto lacking = run({"compare", "1", "2", "--fail-on", "any-worse", "--json"});
  EXPECT_EQ(lacking.exit_code, 1) << lacking.err;
  EXPECT_THAT(lacking.out, HasSubstr("b_rms: correct → absent"));
  EXPECT_EQ(run({"compare", "1", "2"}).exit_code,
            0);  // regression: an absent task is no regression
  auto unknown = run({"compare", "1", "7"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_THAT(unknown.err, HasSubstr("no result 7"));
}

// bench --peers keeps a row per peer; such a table is neither resumed nor compared.
TEST_F(ResultsCli, APeersTableKeepsARowPerPeer) {
  ASSERT_TRUE(core::write_atomic(kernels() / "b_rms.cpp", honest()).ok());
  auto args = bench_args();
  args.insert(args.end(), {"--tasks", "a_rms", "--peers", "--peer-set", "libtorch,torch"});
  auto bench = run(args);
  ASSERT_TRUE(bench.success()) << bench.describe() << "\n" << bench.err;
  auto one = json_of({"results", "1", "--json"});
  ASSERT_EQ(one["results"].size(), 2u) << one.dump(2);
  EXPECT_EQ(one["results"][0]["partner"], "libtorch");
  EXPECT_EQ(one["results"][1]["partner"], "torch");
  EXPECT_EQ(one["settings"]["peers"], (nlohmann::json{"libtorch", "torch"}));
  auto resume = run({"bench", "--resume", "1"});
  EXPECT_EQ(resume.exit_code, 2);
  EXPECT_THAT(resume.err, HasSubstr("bench --peers table"));
  auto compare = run({"compare", "1", "1"});
  EXPECT_EQ(compare.exit_code, 2);
  EXPECT_THAT(compare.err, HasSubstr("a row per peer"));
}

}  // namespace kforge::modes
