// The pallas target through the kforge binary at the ci size: `show --target pallas` prints the
// Python signature, `eval --target pallas` judges a kernel.py (table and --json say the time is an
// interpreter's), `bench --target pallas` states the JAX backend in its header, and --dtype is
// refused for a target that has no use for it; `auto --target pallas` with a scripted model keeps
// the first correct kernel and quotes no speedup from interpret-mode times.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kforge/core/fs.h"
#include "kforge/modes/cli_test_util.h"
#include "pallas_kernels.h"

namespace kforge::modes {
namespace {

class PallasCli : public CliScenario {
 protected:
  std::filesystem::path write_kernel(const std::filesystem::path& path) {
    std::filesystem::create_directories(path.parent_path());
    EXPECT_TRUE(core::write_atomic(path, eval::kernel_with("", "    pass")).ok());
    return path;
  }
};

}  // namespace

TEST_F(PallasCli, ShowPrintsThePythonSignature) {
  auto r = run({"show", "12p_rmsnorm", "--target", "pallas", "--size", "ci"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("def kernel(x, scale):  # -> y"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("x: f32[2, 8, 256]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--python"), std::string::npos) << r.out;
  auto py = run(
      {"show", "12p_rmsnorm", "--target", "pallas", "--size", "ci", "--python", "--dtype", "bf16"});
  ASSERT_EQ(py.exit_code, 0) << py.err;
  EXPECT_NE(py.out.find("DTYPE = \"bf16\""), std::string::npos) << py.out;
  auto refused = run({"show", "12p_rmsnorm", "--size", "ci", "--dtype", "bf16"});
  EXPECT_EQ(refused.exit_code, 2) << refused.out;
}

TEST_F(PallasCli, EvalJudgesAKernelAndSaysItsTimeIsAnInterpreters) {
  auto k = write_kernel(dir_ / "kernel.py");
  auto r = run({"eval", "12p_rmsnorm", k.string(), "--target", "pallas", "--size", "ci",
                "--threads", "1", "--budget", "0.3", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["verdict"], "correct");
  EXPECT_EQ(j["partner"], "xla");
  EXPECT_EQ(j["timing_basis"], "interpret (cpu)");
  EXPECT_EQ(j["timing_is_performance"], false);
  auto human = run({"eval", "12p_rmsnorm", k.string(), "--target", "pallas", "--size", "ci",
                    "--threads", "1", "--no-time"});
  ASSERT_EQ(human.exit_code, 0) << human.out << human.err;
  EXPECT_NE(human.out.find("tpu-interpret"), std::string::npos) << human.out;
}

TEST_F(PallasCli, BenchStatesTheBackendInItsHeader) {
  write_kernel(dir_ / "kernels" / "12p_rmsnorm.py");
  auto r = run({"bench", "--target", "pallas", "--impl", (dir_ / "kernels").string(), "--tasks",
                "12p_rmsnorm", "--size", "ci", "--threads", "1", "--budget", "0.3"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("target pallas, JAX"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("backend cpu (interpret (cpu))"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("not performance figures"), std::string::npos) << r.out;
  auto baseline = run({"bench", "--target", "pallas", "--tasks", "12p_rmsnorm", "--size", "ci"});
  EXPECT_EQ(baseline.exit_code, 2) << baseline.out;
}

namespace {

const char* kPallasPlan = R"(## Analysis
RMSNorm over rows of D floats: one reduction per row.
## Bottleneck
No kernel yet.
## Strategy
One pallas_call, a grid over blocks of 8 rows, the row's mean square in the kernel body.
## Blocking
(8, D) blocks of x and y; the scale as one (1, D) block.
## Vectorization
Whole-block jnp operations inside the kernel.
## Threading
The grid's blocks.
## Tunables
none
## Expected gain
Correct first.
)";

// The profiler asks for more: only the interpret-mode rule may stop the run after iteration 1.
const char* kProfileMore =
    "BOTTLENECK: none measured\nDIAGNOSIS: correct in interpret mode\nNEEDS_IMPROVEMENT: "
    "yes\nSUGGESTION: larger row blocks\n";

}  // namespace

TEST_F(PallasCli, AutoKeepsTheFirstCorrectKernelAndQuotesNoSpeedup) {
  const std::string kernel = eval::kernel_with("", "    pass");
  script({{"planner", {kPallasPlan}},
          {"coder", {"Here it is:\n```python\n" + kernel + "```\n"}},
          {"profiler", {kProfileMore}}});
  auto r = run({"auto", "12p_rmsnorm", "--target", "pallas", "--size", "ci", "--model", model(),
                "--iterations", "3", "--patience", "3", "--threads", "1", "--budget", "0.3",
                "--report-peers", "xla", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.err.find("--report-peers skipped"), std::string::npos) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["iterations"].size(), 1u) << j.dump(2);
  EXPECT_EQ(j["iterations"][0]["verdict"], "correct");
  EXPECT_TRUE(j["iterations"][0]["speedup"].is_null()) << j.dump(2);
  EXPECT_THAT(j["iterations"][0]["tuning"].get<std::string>(), ::testing::HasSubstr("not tuned"));
  EXPECT_THAT(j["stop_reason"].get<std::string>(),
              ::testing::HasSubstr("interpret-mode times are not performance"));
  EXPECT_EQ(j["best"]["iteration"], 1);
  EXPECT_TRUE(j["best"]["speedup"].is_null()) << j.dump(2);
  EXPECT_EQ(j["best"]["timing_basis"], "interpret (cpu)");

  // The planner was told the XLA baseline is timed beside each kernel, not a "0 ms" to beat.
  auto plans = prompts("planner");
  ASSERT_EQ(plans.size(), 1u);
  EXPECT_THAT(plans[0], ::testing::HasSubstr("timed beside each kernel; none timed yet"));
  EXPECT_THAT(plans[0], ::testing::Not(::testing::HasSubstr("At 100% of the roofline")));
  // The agents were asked for Python in the Pallas dialect.
  auto coder = prompts("coder");
  ASSERT_EQ(coder.size(), 1u);
  EXPECT_THAT(coder[0], ::testing::HasSubstr("```python"));

  auto session = dir_ / "state" / "sessions" / j["session"].get<std::string>();
  auto best = core::read_text(session / "best.py");
  ASSERT_TRUE(best.ok()) << r.err;
  EXPECT_EQ(*best, kernel);
  EXPECT_FALSE(std::filesystem::exists(session / "best.cpp"));
  EXPECT_TRUE(std::filesystem::exists(session / "iter-1" / "kernel.py"));
  auto report = core::read_text(session / "report.md");
  ASSERT_TRUE(report.ok());
  EXPECT_THAT(*report, ::testing::HasSubstr("interpret-mode times are not performance; the best "
                                            "is the first correct kernel"));
  EXPECT_THAT(*report, ::testing::HasSubstr("`best.py`"));
  EXPECT_THAT(*report, ::testing::Not(::testing::HasSubstr("## How the best was chosen")));
  EXPECT_THAT(*report, ::testing::Not(::testing::HasSubstr("x XLA")));
}

// A search on the pallas target under interpret mode decides on correctness only: the wrong child
// is not the best, the first correct child is, and it ends the search (no third expansion). No
// speedup is quoted in --json, the graph or the sessions table; a resume keeps the target and a
// resume with another target is refused.
TEST_F(PallasCli, SearchTakesTheFirstCorrectKernelAsFinalAndQuotesNoSpeedup) {
  const std::string right = eval::kernel_with("", "    pass");
  const std::string wrong = eval::kernel_with("", "    scale = scale * 2.0");
  script({{"planner", {kPallasPlan}},
          {"coder",
           {"```python\n" + wrong + "```\n", "```python\n" + right + "```\n",
            "```python\n" + right + "```\n"}},
          {"profiler", {kProfileMore}}});
  auto r = run({"search",           "12p_rmsnorm", "--target",      "pallas",   "--size",   "ci",
                "--model",          model(),       "--algorithm",   "parallel", "--width",  "3",
                "--jobs",           "1",           "--threads",     "1",        "--budget", "0.3",
                "--debug-attempts", "0",           "--tune-budget", "0",        "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["target"], "pallas");
  EXPECT_EQ(j["decided_by"], "correctness (interpret mode: times are not performance)");
  EXPECT_THAT(j["stop_reason"].get<std::string>(), ::testing::HasSubstr("is final"));
  ASSERT_EQ(j["nodes"].size(), 3u) << j.dump(2);  // the root, the wrong child, the correct one
  EXPECT_EQ(j["expansions_run"], 2);
  std::int64_t wrong_node = 0, right_node = 0;
  for (const auto& n : j["nodes"]) {
    EXPECT_TRUE(n["speedup"].is_null()) << n.dump(2);
    EXPECT_TRUE(n["vs_parent"].is_null()) << n.dump(2);  // nothing was timed side by side
    if (n["verdict"] == "correct") right_node = n["id"].get<std::int64_t>();
    if (n["verdict"] == "incorrect") wrong_node = n["id"].get<std::int64_t>();
  }
  ASSERT_NE(right_node, 0) << j.dump(2);
  ASSERT_NE(wrong_node, 0) << j.dump(2);
  EXPECT_EQ(j["best"], right_node);
  const std::string run_id = j["session"].get<std::string>();
  auto session = dir_ / "state" / "sessions" / run_id;
  auto best = core::read_text(session / "best.py");
  ASSERT_TRUE(best.ok()) << r.err;
  EXPECT_EQ(*best, right);
  EXPECT_FALSE(std::filesystem::exists(session / "best.cpp"));
  // The coder was asked for Python, with the pallas strategies.
  auto coder = prompts("coder");
  ASSERT_EQ(coder.size(), 2u);
  EXPECT_THAT(coder[0], ::testing::HasSubstr("```python"));

  auto table = run({"search", "--resume", run_id, "--model", model()});
  ASSERT_EQ(table.exit_code, 0) << table.out << table.err;
  EXPECT_THAT(table.out, ::testing::HasSubstr("the first correct kernel (decided by correctness "
                                              "(interpret mode: times are not performance)"));
  EXPECT_THAT(table.out, ::testing::HasSubstr("best.py"));
  EXPECT_THAT(table.out, ::testing::Not(::testing::HasSubstr("x the baseline")));
  EXPECT_EQ(prompts("coder").size(), 2u);  // the resume had nothing left to run

  auto graph = run({"graph", run_id});
  ASSERT_EQ(graph.exit_code, 0) << graph.err;
  EXPECT_THAT(graph.out, ::testing::Not(::testing::ContainsRegex("[0-9]x")));
  auto sessions = run({"sessions", "--json"});
  ASSERT_EQ(sessions.exit_code, 0) << sessions.err;
  for (const auto& s : nlohmann::json::parse(sessions.out))
    EXPECT_TRUE(s["best_speedup"].is_null()) << s.dump(2);

  auto other = run({"search", "--resume", run_id, "--target", "cpp", "--model", model()});
  EXPECT_EQ(other.exit_code, 2) << other.out << other.err;
  EXPECT_THAT(other.err, ::testing::HasSubstr("started with --target pallas"));
}

// `kforge hitl --target pallas`: the session's kernels are kernel.py, judged by the pallas
// target; `time` quotes no speedup from interpret-mode times and the first correct version is the
// best; the target is kept in the session's state and a resume with another target is refused.
using HitlTest = PallasCli;

TEST_F(HitlTest, PallasTargetKeptBySessionAndNoSpeedupFromInterpretTimes) {
  const std::string kernel = eval::kernel_with("", "    pass");
  script({{"planner", {kPallasPlan}}, {"coder", {"```python\n" + kernel + "```\n"}}});
  auto r = run({"hitl", "12p_rmsnorm", "--target", "pallas", "--size", "ci", "--model", model(),
                "--budget", "0.3", "--threads", "1"},
               "plan\na\nimplement\ntime\nstatus\naccept out.py\n");
  ASSERT_TRUE(r.success()) << r.out << r.err;
  EXPECT_THAT(r.out, ::testing::HasSubstr("target pallas"));
  EXPECT_THAT(r.out, ::testing::HasSubstr("kernel    median"));  // timed: it passed the check
  EXPECT_THAT(r.out, ::testing::HasSubstr("interpret (cpu): times are not performance"));
  EXPECT_THAT(r.out, ::testing::HasSubstr("v1 is the best: the first correct version"));
  EXPECT_THAT(r.out, ::testing::Not(::testing::HasSubstr("speedup   ")));
  EXPECT_THAT(r.out, ::testing::Not(::testing::HasSubstr("x the baseline")));
  EXPECT_THAT(r.out, ::testing::HasSubstr("v1 written to out.py"));
  auto accepted = core::read_text(dir_ / "out.py");
  ASSERT_TRUE(accepted.ok());
  EXPECT_EQ(*accepted, kernel);
  // The coder was asked for Python.
  auto coder = prompts("coder");
  ASSERT_EQ(coder.size(), 1u);
  EXPECT_THAT(coder[0], ::testing::HasSubstr("```python"));

  std::string id;
  for (const auto& e : std::filesystem::directory_iterator(dir_ / "state" / "sessions"))
    id = e.path().filename().string();
  auto session = dir_ / "state" / "sessions" / id;
  EXPECT_TRUE(std::filesystem::exists(session / "best.py"));
  EXPECT_TRUE(std::filesystem::exists(session / "versions" / "v1.py"));
  EXPECT_FALSE(std::filesystem::exists(session / "best.cpp"));
  auto state = nlohmann::json::parse(*core::read_text(session / "state.json"));
  EXPECT_EQ(state["target"], "pallas");

  auto other = run({"hitl", "--resume", id, "--target", "cpp"}, "quit\n");
  EXPECT_EQ(other.exit_code, 2) << other.out << other.err;
  EXPECT_THAT(other.err, ::testing::HasSubstr("is for --target pallas"));
  auto resumed = run({"hitl", "--resume", id}, "status\nquit\n");
  ASSERT_TRUE(resumed.success()) << resumed.out << resumed.err;
  EXPECT_THAT(resumed.out, ::testing::HasSubstr("best      v1: the first correct version"));
  auto sessions = nlohmann::json::parse(run({"sessions", "--json"}).out);
  for (const auto& s : sessions) EXPECT_TRUE(s["best_speedup"].is_null()) << s.dump(2);
}

}  // namespace kforge::modes
