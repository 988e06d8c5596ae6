// Evaluations through a real Slurm cluster: the test starts one on this machine (munged,
// slurmctld and two slurmd from Debian's slurm-wlm, tests/slurm/cluster.sh) and drives the kforge
// binary against it. It proves that an evaluation through Slurm gives the local verdict (correct
// and incorrect alike) with no seed file left and no API key in the job; that a job killed from
// outside (scancel) is submitted again and still gives the verdict; that a driver killed while
// its job runs adopts that job when restarted instead of submitting another, and takes a
// finished result without any job; and that a beam search through Slurm builds the local graph.
// Skipped, saying why, where Slurm or munge is not installed.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <map>
#include <set>
#include <thread>

#include "kforge/core/fs.h"
#include "kforge/core/subprocess.h"
#include "kforge/core/trim.h"
#include "kforge/modes/cli_test_util.h"

namespace kforge::modes {
namespace {

namespace fs = std::filesystem;

std::string sh(const std::vector<std::string>& argv) {
  auto r = core::run_process(argv, {.timeout = std::chrono::seconds(90)});
  return r.out + (r.success() ? "" : "\n[" + r.describe() + "] " + r.err);
}

class SlurmTest : public CliScenario {
 protected:
  static inline fs::path cluster_;
  static inline std::string skip_;

  static void SetUpTestSuite() {
    for (const char* b : {"/usr/sbin/slurmctld", "/usr/sbin/slurmd", "/usr/sbin/munged",
                          "/usr/bin/sbatch", "/usr/bin/squeue"})
      if (!fs::exists(b)) {
        skip_ = std::string(b) + " is missing: apt-get install slurm-wlm munge (scripts/setup)";
        return;
      }
    if (auto conf = shared_cluster_conf(); !conf.empty()) {
      ::setenv("SLURM_CONF", conf.c_str(), 1);
      on_shared_cluster_ = true;
      return;
    }
    cluster_ = fs::temp_directory_path() / ("kforge-slurm-" + std::to_string(::getpid()));
    auto script = (core::source_dir() / "tests" / "slurm" / "cluster.sh").string();
    // KFORGE_TEST_SLURM_NODES: more compute daemons, for the scaling figure below.
    const char* nodes = std::getenv("KFORGE_TEST_SLURM_NODES");
    auto r = core::run_process({script, "start", cluster_.string(), nodes ? nodes : "2", "2"},
                               {.timeout = std::chrono::seconds(90)});
    auto at = r.out.find("SLURM_CONF=");
    if (!r.success() || at == std::string::npos) {
      skip_.clear();
      cluster_error_ = "the test cluster did not start: " + r.describe() + "\n" + r.err;
      return;
    }
    ::setenv("SLURM_CONF", std::string(core::trim(r.out.substr(at + 11))).c_str(), 1);
  }
  // The cluster ctest starts for all the Slurm tests (tests/CMakeLists.txt) in build/test-slurm,
  // when its controller runs; "" when there is none (this binary run alone, or the cluster not
  // started because KFORGE_TEST_SLURM_NODES asks for another size).
  static std::string shared_cluster_conf() {
    const char* bin = std::getenv("KFORGE_BIN_DIR");
    if (!bin || !*bin || std::getenv("KFORGE_TEST_SLURM_NODES")) return "";
    const fs::path dir = fs::path(bin).parent_path() / "test-slurm";
    auto pid = core::read_text(dir / "run" / "slurmctld.pid");
    if (!pid.ok() || !fs::exists(dir / "slurm.conf")) return "";
    const long id = std::atol(std::string(core::trim(*pid)).c_str());
    return id > 0 && ::kill(static_cast<pid_t>(id), 0) == 0 ? (dir / "slurm.conf").string() : "";
  }
  // On the shared cluster, a job an earlier test left running is cancelled before this test
  // starts: the tests find their job as the one running.
  static void cancel_leftover_jobs() {
    if (core::trim(sh({"squeue", "--noheader", "--format=%i"})).empty()) return;
    sh({"scancel", "--user=root"});
    for (int i = 0; i < 150; ++i) {
      if (core::trim(sh({"squeue", "--noheader", "--format=%i"})).empty()) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    ADD_FAILURE() << "jobs left by an earlier test did not end: " << sh({"squeue"});
  }

  static void TearDownTestSuite() {
    if (cluster_.empty()) return;
    auto script = (core::source_dir() / "tests" / "slurm" / "cluster.sh").string();
    core::run_process({script, "stop", cluster_.string()}, {.timeout = std::chrono::seconds(30)});
    std::error_code ec;
    fs::remove_all(cluster_, ec);
  }
  static inline std::string cluster_error_;
  static inline bool on_shared_cluster_ = false;  // ctest's cluster, not this process's

  void SetUp() override {
    if (!skip_.empty()) GTEST_SKIP() << skip_;
    ASSERT_TRUE(cluster_error_.empty()) << cluster_error_;
    if (on_shared_cluster_) cancel_leftover_jobs();
    CliScenario::SetUp();
    shared_ = dir_ / "shared";
    ASSERT_TRUE(core::write_atomic(dir_ / "kforge.toml",
                                   "[executor]\nkind = \"slurm\"\nshared_folder = \"" +
                                       shared_.string() +
                                       "\"\npoll_s = 0.2\nmax_jobs = 4\nretries = 2\n")
                    .ok());
    const std::string head = "#include \"kforge_task.h\"\n#include <cmath>\n";
    ASSERT_TRUE(core::write_atomic(dir_ / "fast.cpp", head + rms::kFast).ok());
    ASSERT_TRUE(core::write_atomic(dir_ / "wrong.cpp", head + rms::kWrong).ok());
  }

  // The driver gets an API key in its environment: a job that could see it refuses to run.
  core::ProcessResult kforge_run(std::vector<std::string> args,
                                 const std::atomic<bool>* cancel = nullptr) {
    args.insert(args.begin(), kforge());
    auto env = CliScenario::env();
    env.push_back("OPENAI_API_KEY=sk-test-must-not-reach-a-node");
    return core::run_process(
        args,
        {.timeout = std::chrono::seconds(300), .cwd = dir_, .extra_env = env, .cancel = cancel});
  }
  nlohmann::json eval(const std::string& kernel, const std::string& executor) {
    auto r = kforge_run({"eval", "12p_rmsnorm", kernel, "--size", "ci", "--budget", "0.2",
                         "--executor", executor, "--json"});
    auto j = nlohmann::json::parse(r.out, nullptr, false);
    EXPECT_TRUE(j.is_object()) << r.out << r.err;
    return j;
  }
  std::vector<fs::path> job_folders() const {
    std::vector<fs::path> out;
    if (fs::exists(shared_ / "jobs"))
      for (const auto& e : fs::directory_iterator(shared_ / "jobs")) out.push_back(e.path());
    return out;
  }
  static int jobs_known() {
    auto out = sh({"squeue", "--noheader", "--states=all", "--format=%i"});
    return static_cast<int>(std::count(out.begin(), out.end(), '\n'));
  }
  // Waits until some job of ours runs; its id.
  static std::string running_job(double within_s) {
    for (double t = 0; t < within_s; t += 0.2) {
      auto out = sh({"squeue", "--noheader", "--states=RUNNING", "--format=%i"});
      if (!core::trim(out).empty()) return std::string(core::trim(out.substr(0, out.find('\n'))));
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    return "";
  }

  fs::path shared_;
};

TEST_F(SlurmTest, EvalThroughSlurmGivesTheLocalVerdictAndLeavesNoSecrets) {
  auto local = eval("fast.cpp", "local");
  auto remote = eval("fast.cpp", "slurm");
  EXPECT_EQ(local["verdict"], "correct") << local.dump(2);
  EXPECT_EQ(remote["verdict"], "correct") << remote.dump(2);
  EXPECT_TRUE(remote["speedup"].is_number() || remote["busy_speedup"].is_object())
      << "a timing job times, on its node";
  // A wrong kernel is caught on the node with the same secret inputs as here.
  auto wrong_local = eval("wrong.cpp", "local");
  auto wrong_remote = eval("wrong.cpp", "slurm");
  EXPECT_EQ(wrong_local["verdict"], "incorrect");
  EXPECT_EQ(wrong_remote["verdict"], "incorrect") << wrong_remote.dump(2);
  EXPECT_EQ(wrong_local["mismatch"]["outputs"][0]["bad"],
            wrong_remote["mismatch"]["outputs"][0]["bad"])
      << "the same seeds give the same mismatching elements";

  auto folders = job_folders();
  ASSERT_EQ(folders.size(), 2u);
  for (const auto& f : folders) {
    EXPECT_FALSE(fs::exists(f / "seeds")) << "the job deletes its sealed seeds once read";
    struct stat st {};
    ASSERT_EQ(::stat(f.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0700u) << f;
    ASSERT_EQ(::stat((f / "result.json").c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u);
    auto spec = core::read_text(f / "spec.json");
    ASSERT_TRUE(spec.ok());
    EXPECT_THAT(*spec, ::testing::Not(::testing::HasSubstr("sk-test")));
    auto attempts = nlohmann::json::parse(*core::read_text(f / "jobs.json"));
    EXPECT_EQ(attempts.size(), 1u);
    EXPECT_EQ(attempts[0]["exclusive"], true) << "timing jobs take a node of their own";
  }
}

TEST_F(SlurmTest, AJobCancelledFromOutsideIsSubmittedAgain) {
  nlohmann::json result;
  std::thread driver([&] {
    auto r = kforge_run({"eval", "12p_rmsnorm", "fast.cpp", "--size", "ci", "--budget", "2",
                         "--executor", "slurm", "--json"});
    result = nlohmann::json::parse(r.out, nullptr, false);
  });
  auto id = running_job(60);
  ASSERT_FALSE(id.empty()) << "no job ran";
  sh({"scancel", id});
  driver.join();
  ASSERT_TRUE(result.is_object());
  EXPECT_EQ(result["verdict"], "correct") << result.dump(2);
  auto folders = job_folders();
  ASSERT_EQ(folders.size(), 1u);
  auto attempts = nlohmann::json::parse(*core::read_text(folders[0] / "jobs.json"));
  ASSERT_EQ(attempts.size(), 2u) << attempts.dump(2);
  EXPECT_EQ(attempts[0]["job"], id);
  EXPECT_THAT(attempts[0]["ended"].get<std::string>(), ::testing::StartsWith("CANCELLED"));
  EXPECT_EQ(attempts[1]["ended"], "COMPLETED");
}

TEST_F(SlurmTest, AKilledDriverAdoptsItsRunningJobAndReusesFinishedOnes) {
  const std::vector<std::string> args = {"eval",  "12p_rmsnorm", "fast.cpp", "--size",
                                         "ci",    "--budget",    "2",        "--executor",
                                         "slurm", "--json"};
  std::atomic<bool> kill{false};
  std::thread driver([&] { kforge_run(args, &kill); });
  auto id = running_job(60);
  ASSERT_FALSE(id.empty());
  kill = true;  // SIGKILL to the driver's process group: the job on its node goes on
  driver.join();
  const int before = jobs_known();
  auto again = nlohmann::json::parse(kforge_run(args).out, nullptr, false);
  ASSERT_TRUE(again.is_object());
  EXPECT_EQ(again["verdict"], "correct") << again.dump(2);
  EXPECT_EQ(jobs_known(), before) << "the restarted driver adopted the job instead of a new one";
  auto folders = job_folders();
  ASSERT_EQ(folders.size(), 1u);
  auto attempts = nlohmann::json::parse(*core::read_text(folders[0] / "jobs.json"));
  ASSERT_EQ(attempts.size(), 1u) << attempts.dump(2);
  EXPECT_EQ(attempts[0]["job"], id);
  // Finished work is not submitted again either.
  auto third = nlohmann::json::parse(kforge_run(args).out, nullptr, false);
  ASSERT_TRUE(third.is_object());
  EXPECT_EQ(third["speedup"], again["speedup"]) << "the same result, read back";
  EXPECT_EQ(jobs_known(), before);
}

// The driver of this test's `kforge` child: found by its working folder, which is this test's.
pid_t driver_pid(const fs::path& cwd) {
  for (const auto& e : fs::directory_iterator("/proc")) {
    std::error_code ec;
    auto name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    if (fs::read_symlink(e.path() / "cwd", ec) != cwd || ec) continue;
    auto exe = fs::read_symlink(e.path() / "exe", ec);
    if (!ec && exe.filename() == "kforge") return static_cast<pid_t>(std::stol(name));
  }
  return -1;
}

TEST_F(SlurmTest, CtrlCCancelsTheJobsInFlight) {
  core::ProcessResult r;
  std::thread driver([&] {
    r = kforge_run({"eval", "12p_rmsnorm", "fast.cpp", "--size", "ci", "--budget", "5",
                    "--executor", "slurm", "--json"});
  });
  auto id = running_job(60);
  ASSERT_FALSE(id.empty());
  pid_t pid = driver_pid(dir_);
  ASSERT_GT(pid, 0);
  ::kill(pid, SIGINT);
  driver.join();
  EXPECT_EQ(r.exit_code, 130) << r.err;
  // A cancelled job reads COMPLETING while its node kills its processes (KillWait), then
  // CANCELLED; one that ran on (no scancel) reads RUNNING, or COMPLETED once it ends.
  std::string state;
  for (int i = 0; i < 150; ++i) {
    state = sh({"squeue", "--noheader", "--states=all", "--format=%T", "--jobs=" + id});
    if (state.rfind("COMPLETING", 0) != 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  EXPECT_THAT(state, ::testing::StartsWith("CANCELLED")) << "scancel on Ctrl-C";
  auto folders = job_folders();
  ASSERT_EQ(folders.size(), 1u);
  EXPECT_FALSE(fs::exists(folders[0] / "result.json"));
}

TEST_F(SlurmTest, BenchThroughSlurmGivesTheLocalVerdicts) {
  auto bench = [&](const std::string& executor) {
    auto r = kforge_run({"bench", "--tasks", "12p_rmsnorm,13p_cross_entropy", "--impl", "reference",
                         "--size", "ci", "--budget", "0.2", "--retries", "0", "--executor",
                         executor, "--json"});
    auto j = nlohmann::json::parse(r.out, nullptr, false);
    EXPECT_TRUE(j.is_object()) << r.out << r.err;
    std::map<std::string, std::string> verdicts;
    for (const auto& row : j["tasks"])
      verdicts[row["task"].get<std::string>()] =
          row.contains("evaluation") ? row["evaluation"]["verdict"].get<std::string>()
                                     : row["status"].get<std::string>();
    return verdicts;
  };
  auto local = bench("local");
  auto remote = bench("slurm");
  EXPECT_EQ(local.size(), 2u);
  EXPECT_EQ(local, remote);
  EXPECT_EQ(job_folders().size(), 2u) << "one job per task";
}

TEST_F(SlurmTest, BeamSearchThroughSlurmBuildsTheLocalGraph) {
  ASSERT_TRUE(core::write_atomic(dir_ / "strategies.toml", R"(replace = true
[[strategy]]
id = "go_fast"
family = "compute"
text = "STRATEGY-FAST: vectorize the reduction."
[[strategy]]
id = "go_wrong"
family = "algorithm"
text = "STRATEGY-WRONG: drop the scale."
)")
                  .ok());
  script({{"planner",
           {nlohmann::json{{"when", "STRATEGY-FAST"}, {"reply", rms::plan("PLAN-FAST vectorize")}},
            nlohmann::json{{"when", "STRATEGY-WRONG"}, {"reply", rms::plan("PLAN-WRONG no scale")}},
            rms::plan("PLAN-FAST")}},
          {"coder",
           {nlohmann::json{{"when", "PLAN-FAST"}, {"reply", rms::block(rms::kFast)}},
            nlohmann::json{{"when", "PLAN-WRONG"}, {"reply", rms::block(rms::kWrong)}}}},
          {"debugger", {rms::fix(rms::kWrong, "still wrong")}},
          {"profiler", {rms::kProfiled}}});
  auto graph = [&](const std::string& executor) {
    auto r = kforge_run(
        {"search",           "12p_rmsnorm", "--size",        "ci",
         "--model",          model(),       "--strategies",  (dir_ / "strategies.toml").string(),
         "--budget",         "0.2",         "--tune-budget", "0",
         "--debug-attempts", "0",           "--algorithm",   "beam",
         "--beam-size",      "1",           "--branches",    "2",
         "--depth",          "1",           "--keep-factor", "100",
         "--seed",           "3",           "--jobs",        "2",
         "--executor",       executor,      "--quiet",       "--json"});
    auto j = nlohmann::json::parse(r.out, nullptr, false);
    EXPECT_TRUE(j.is_object()) << r.out << r.err;
    std::multiset<std::string> nodes;
    for (const auto& n : j["nodes"])
      nodes.insert(
          fmt::format("{} {} {}", n["depth"].dump(), n["strategy"].dump(), n["verdict"].dump()));
    return nodes;
  };
  auto local = graph("local");
  auto remote = graph("slurm");
  EXPECT_EQ(local, remote);
  EXPECT_EQ(local.size(), 3u);
  EXPECT_GE(job_folders().size(), 3u) << "the search's evaluations ran as jobs";
}

// Not a check: the wall time of one fixed search (four expansions at once, a model that takes
// 2 s a call) here and through the cluster of KFORGE_TEST_SLURM_NODES nodes, paired in one run,
// for the scaling figure. Run with --gtest_also_run_disabled_tests.
TEST_F(SlurmTest, DISABLED_ScalingFigure) {
  ASSERT_TRUE(core::write_atomic(dir_ / "strategies.toml", R"(replace = true
[[strategy]]
id = "go_fast"
family = "compute"
text = "STRATEGY-FAST: vectorize the reduction."
[[strategy]]
id = "go_slow"
family = "memory"
text = "STRATEGY-SLOW: recompute everything in double."
[[strategy]]
id = "go_fast2"
family = "algorithm"
text = "STRATEGY-FAST: vectorize again."
[[strategy]]
id = "go_slow2"
family = "parallel"
text = "STRATEGY-SLOW: recompute again."
)")
                  .ok());
  auto with_latency = nlohmann::json{
      {"latency_s", 2},
      {"planner",
       {nlohmann::json{{"when", "STRATEGY-FAST"}, {"reply", rms::plan("PLAN-FAST vectorize")}},
        nlohmann::json{{"when", "STRATEGY-SLOW"}, {"reply", rms::plan("PLAN-SLOW double")}},
        rms::plan("PLAN-FAST")}},
      {"coder",
       {nlohmann::json{{"when", "PLAN-FAST"}, {"reply", rms::block(rms::kFast)}},
        nlohmann::json{{"when", "PLAN-SLOW"}, {"reply", rms::block(rms::kSlow)}}}},
      {"debugger", {rms::fix(rms::kWrong, "still wrong")}},
      {"profiler", {rms::kProfiled}}};
  script(with_latency);
  // max_jobs 1 against max_jobs 4 on the same cluster, in one run: one node's worth of jobs
  // in flight against four.
  auto timed = [&](const std::string& executor, int max_jobs, int seed) {
    EXPECT_TRUE(core::write_atomic(dir_ / "kforge.toml",
                                   "[executor]\nkind = \"slurm\"\nshared_folder = \"" +
                                       (dir_ / fmt::format("shared-{}", seed)).string() +
                                       "\"\npoll_s = 0.2\nmax_jobs = " + std::to_string(max_jobs) +
                                       "\n")
                    .ok());
    auto t = std::chrono::steady_clock::now();
    auto r = kforge_run(
        {"search",           "12p_rmsnorm", "--size",        "ci",
         "--model",          model(),       "--strategies",  (dir_ / "strategies.toml").string(),
         "--budget",         "0.3",         "--tune-budget", "0",
         "--debug-attempts", "0",           "--algorithm",   "parallel",
         "--width",          "4",           "--seed",        std::to_string(seed),
         "--jobs",           "4",           "--executor",    executor,
         "--quiet",          "--json"});
    EXPECT_TRUE(r.success()) << r.err;
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  };
  std::map<std::string, std::vector<double>> walls;
  const char* kinds[] = {"local", "slurm-1", "slurm-4"};
  for (int round = 0; round < 2; ++round)
    for (int k = 0; k < 3; ++k) {
      std::string kind = kinds[round % 2 == 0 ? k : 2 - k];  // alternating order
      int max_jobs = kind == "slurm-1" ? 1 : 4;
      walls[kind].push_back(
          timed(kind == "local" ? "local" : "slurm", max_jobs, 100 * round + k + 1));
    }
  double load[3] = {0, 0, 0};
  ::getloadavg(load, 3);
  for (const auto& [kind, w] : walls)
    std::printf("scaling: %s: %.1f s, %.1f s (load %.1f)\n", kind.c_str(), w[0], w[1], load[0]);
}

}  // namespace
}  // namespace kforge::modes
