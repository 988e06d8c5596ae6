// `kforge auto` end to end on 12p_rmsnorm at the ci size, with a scripted model behind the cmd:
// provider. The coder first writes a kernel that does not compile; the debugger's fix compiles
// but is wrong; its second fix is correct and declares a tunable. The tests assert that the
// compiler's message and then the mismatch analysis reach the debugger's prompt (with the earlier
// attempt), that the tuned kernel is re-checked, that the best correct kernel is kept, that the
// stop rules fire, that later requests carry the budget left, the latest baseline, the tuner's
// table and the profiler's suggestion, and that a malformed reply gets one corrective retry.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "kforge/core/fs.h"
#include "kforge/modes/cli_test_util.h"
#include "kforge/store/store.h"
#include "kforge/targets/target.h"

namespace kforge::modes {
namespace {

using ::testing::HasSubstr;

const char* kPlan = R"(## Analysis
RMSNorm over rows of 256 floats: memory-bound.
## Bottleneck
No kernel yet.
## Strategy
One fused pass per row, rows split across threads, unrolled reduction.
## Blocking
None: a row fits in L1.
## Vectorization
The inner loop over D with omp simd.
## Threading
Rows split statically.
## Tunables
UNROLL = {1, 2}
## Expected gain
Several times the baseline.
)";

const char* kWrong = R"(extern "C" void kernel(const float* x, const float* scale, float* y) {
  using namespace task;
  for (std::int64_t r = 0; r < B * S; ++r) {
    float ss = 0;
    for (std::int64_t d = 0; d < D; ++d) ss += x[r * D + d] * x[r * D + d];
    float inv = 1.0f / std::sqrt(ss / D + eps);
    for (std::int64_t d = 0; d < D; ++d) y[r * D + d] = x[r * D + d] * inv;  // scale forgotten
  }
}
)";

const char* kTunable = R"(// kforge:tune UNROLL = {1, 2}
#ifndef UNROLL
#define UNROLL 1
#endif
extern "C" void kernel(const float* x, const float* scale, float* y) {
  using namespace task;
  for (std::int64_t r = 0; r < B * S; ++r) {
    float ss[UNROLL] = {};
    for (std::int64_t d = 0; d < D; d += UNROLL)
      for (int u = 0; u < UNROLL; ++u) ss[u] += x[r * D + d + u] * x[r * D + d + u];
    float total = 0;
    for (int u = 0; u < UNROLL; ++u) total += ss[u];
    float inv = 1.0f / std::sqrt(total / D + eps);
    for (std::int64_t d = 0; d < D; ++d) y[r * D + d] = x[r * D + d] * inv * scale[d];
  }
}
)";

const char* kProfileMore =
    "BOTTLENECK: memory bandwidth\nDIAGNOSIS: scalar reduction at 40% of the "
    "roofline\nNEEDS_IMPROVEMENT: yes\nSUGGESTION: AVX2\n";
const char* kProfileDone =
    "BOTTLENECK: memory bandwidth\nDIAGNOSIS: at the bandwidth limit\nNEEDS_IMPROVEMENT: "
    "no\nSUGGESTION: none\n";

class AutoLoopTest : public CliScenario {
 protected:
  // Runs `kforge auto` with the script; returns its --json summary.
  nlohmann::json run_auto(const nlohmann::json& script_json,
                          const std::vector<std::string>& extra) {
    script(script_json);
    std::vector<std::string> args = {"auto",     "12p_rmsnorm", "--size",        "ci",
                                     "--model",  model(),       "--tune-budget", "2",
                                     "--budget", "0.2",         "--json"};
    args.insert(args.end(), extra.begin(), extra.end());
    auto r = run(args);
    output_ = r.err;
    auto j = nlohmann::json::parse(r.out, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << "stdout: " << r.out << "\nstderr: " << r.err;
    return j;
  }

  std::string output_;
};

}  // namespace

TEST_F(AutoLoopTest, DebugsCompileAndCheckFailuresTunesAndStopsWithoutImprovement) {
  nlohmann::json script = {
      {"planner", {kPlan}},
      {"coder", {rms::block(rms::kBroken), rms::block(rms::kSlow)}},
      {"debugger",
       {rms::fix(kWrong, "an undeclared name"), rms::fix(kTunable, "the scale was not applied")}},
      {"profiler", {kProfileMore}}};
  auto j = run_auto(script, {"--iterations", "4", "--patience", "1"});
  ASSERT_TRUE(j.is_object()) << output_;

  // The compiler's message reached the first debugging prompt; the mismatch analysis and the
  // earlier attempt reached the second.
  auto debug = prompts("debugger");
  ASSERT_EQ(debug.size(), 2u) << output_;
  EXPECT_THAT(debug[0], HasSubstr("undeclared_thing"));
  EXPECT_THAT(debug[0], HasSubstr("kernel.cpp:4:"));
  EXPECT_THAT(debug[1], HasSubstr("verdict: incorrect"));
  EXPECT_THAT(debug[1], HasSubstr("worst at"));
  EXPECT_THAT(debug[1], HasSubstr("cause found: an undeclared name"));

  // Iteration 1: two fixes, tuned and re-checked, the best. Iteration 2: correct but slower, and
  // with patience 1 the run stops there.
  const auto& its = j["iterations"];
  ASSERT_EQ(its.size(), 2u) << j.dump(2);
  EXPECT_EQ(its[0]["verdict"], "correct");
  EXPECT_EQ(its[0]["fixes"], 2);
  // The tuner timed UNROLL=2 side by side against the declared default, UNROLL=1, and kept the
  // default unless the variant's whole interval lay above 1.
  const std::string tuning = its[0]["tuning"].get<std::string>();
  // One variant, raced within the default budget of side-by-side runs (the table itself reaches
  // the profiler, below).
  EXPECT_THAT(tuning, HasSubstr("tuned UNROLL: "));
  EXPECT_THAT(tuning, HasSubstr("side-by-side runs (at most 10)"));
  const bool tuned = tuning.find("beat the defaults") != std::string::npos;
  if (tuned) {
    EXPECT_THAT(tuning, HasSubstr("re-check: correct"));
  }
  EXPECT_EQ(its[1]["verdict"], "correct");
  EXPECT_EQ(j["best"]["iteration"], 1);
  EXPECT_THAT(j["stop_reason"].get<std::string>(), HasSubstr("1 iterations without improvement"));
  // Iteration 2 lost to iteration 1 side by side in one run, not on medians from two runs (on a
  // busy machine: in two runs that agree, or it was a tie: either way it did not become the best).
  const auto& d = its[1]["decision"];
  if (!d["busy"].get<bool>()) {
    EXPECT_EQ(d["winner"], "incumbent") << its[1].dump(2);
    EXPECT_LT(d["ratio"]["ci95"][1].get<double>(), 1.0);
  } else {
    EXPECT_NE(d["winner"], "challenger") << its[1].dump(2);
    if (d["winner"] == "incumbent") {
      EXPECT_TRUE(d["decided_busy"].get<bool>()) << its[1].dump(2);
      EXPECT_LT(d["first_ratio"]["ci95"][1].get<double>(), 1.0);
      EXPECT_LT(d["ratio"]["ci95"][1].get<double>(), 1.0);
    }
  }

  // The second plan is told where the run stands: the budget left, the latest paired baseline, the
  // best kernel's tuning and the profiler's suggestion; the profiler saw the tuner's table.
  auto plans = prompts("planner");
  ASSERT_EQ(plans.size(), 2u);
  EXPECT_THAT(plans[0], HasSubstr("Iteration 1 of 4 (3 more after this one)"));
  EXPECT_THAT(plans[1], HasSubstr("Iteration 2 of 4 (2 more after this one)"));
  EXPECT_THAT(plans[1], HasSubstr("measured beside iteration 1's kernel, the latest measurement"));
  EXPECT_THAT(plans[1], HasSubstr("Suggested next: AVX2"));
  EXPECT_THAT(plans[1], HasSubstr("| variant | against |"));  // the tuner's table
  auto profiles = prompts("profiler");
  ASSERT_FALSE(profiles.empty());
  EXPECT_THAT(profiles[0], HasSubstr("| UNROLL=2 | UNROLL=1 |"));
  EXPECT_THAT(profiles[0], HasSubstr("95% interval"));
  // A cmd: model reports no usage: its tokens are estimated, and say so.
  EXPECT_EQ(j["tokens_estimated"], true);
  EXPECT_GT(j["tokens_in"].get<long>(), 0);

  // The artifacts: best.cpp is the tuned kernel; report.md has the table; the store has the nodes.
  auto session = dir_ / "state" / "sessions" / j["session"].get<std::string>();
  auto best = core::read_text(session / "best.cpp");
  ASSERT_TRUE(best.ok());
  if (tuned) {
    EXPECT_THAT(
        *best,
        HasSubstr(
            "  // kforge: chosen by the tuner (declared default 1)"));  // a default, not pinned
                                                                        // ahead of the guard
  }
  auto report = core::read_text(session / "report.md");
  ASSERT_TRUE(report.ok());
  EXPECT_THAT(*report, HasSubstr("| 1 | correct |"));
  EXPECT_THAT(*report, HasSubstr("## How the best was chosen"));
  EXPECT_THAT(*report, HasSubstr("- iteration 2: "));
  EXPECT_TRUE(std::filesystem::exists(session / "iter-1" / "plan.md"));
  EXPECT_TRUE(std::filesystem::exists(session / "iter-1" / "debug.md"));
  EXPECT_TRUE(std::filesystem::exists(session / "transcript.jsonl"));
  auto db = store::open_store(store::store_path(dir_ / "state"));
  ASSERT_TRUE(db.ok());
  auto nodes = store::nodes_of_run(**db, j["session"]);
  ASSERT_TRUE(nodes.ok());
  ASSERT_EQ(nodes->size(), 2u);
  EXPECT_FALSE((*nodes)[0].parent_id.has_value());   // the first iteration starts the line
  EXPECT_EQ((*nodes)[1].parent_id, (*nodes)[0].id);  // the second grows from the best so far
  auto run = store::find_run(**db, j["session"]);
  ASSERT_TRUE(run.ok() && run->has_value());
  EXPECT_EQ((*run)->best_node, (*nodes)[0].id);
}

// One run, two checks: a reply without the plan's sections gets one corrective retry, and the
// profiler's "at its limit" stops the run after the first correct kernel.
TEST_F(AutoLoopTest, MalformedPlanGetsOneCorrectiveRetryAndTheProfilersDecisionStopsTheRun) {
  nlohmann::json script = {{"planner", {"I would vectorize it.", kPlan}},
                           {"coder", {rms::block(kTunable)}},
                           {"debugger", {rms::fix(kTunable, "none")}},
                           {"profiler", {kProfileDone}}};
  auto j = run_auto(script, {"--iterations", "5"});
  ASSERT_TRUE(j.is_object()) << output_;
  auto plans = prompts("planner");
  ASSERT_EQ(plans.size(), 2u);
  EXPECT_THAT(plans[1],
              HasSubstr("Your reply could not be used: the plan is missing these sections"));
  EXPECT_EQ(j["iterations"].size(), 1u);
  EXPECT_EQ(j["iterations"][0]["verdict"], "correct");
  EXPECT_THAT(j["stop_reason"].get<std::string>(),
              HasSubstr("profiler judged the best kernel at its limit"));
  EXPECT_TRUE(prompts("debugger").empty());
}

// A faster kernel becomes the best by beating the best side by side in one run (its interval
// above 1), and the run stops at its iteration limit.
TEST_F(AutoLoopTest, AFasterKernelWinsSideBySideAndTheIterationLimitStopsTheRun) {
  nlohmann::json script = {{"planner", {kPlan, kPlan}},
                           {"coder", {rms::block(rms::kSlow), rms::block(kTunable)}},
                           {"debugger", {rms::fix(kTunable, "none")}},
                           {"profiler", {kProfileMore, kProfileMore}}};
  auto j = run_auto(script, {"--iterations", "2", "--patience", "2"});
  ASSERT_TRUE(j.is_object()) << output_;
  EXPECT_EQ(j["stop_reason"], "reached 2 iterations");
  const auto& its = j["iterations"];
  ASSERT_EQ(its.size(), 2u) << j.dump(2);
  EXPECT_TRUE(its[0]["decision"].is_null());  // the first correct kernel is the best by default
  const auto& d = its[1]["decision"];
  ASSERT_TRUE(d.is_object()) << j.dump(2);
  EXPECT_EQ(d["against"], "iteration 1");
  if (d["busy"].get<bool>()) {
    // Still busy when timed again: it decides only when both runs' intervals agree (a kernel doing
    // forty times the work never wins); else the best stays.
    EXPECT_NE(d["winner"], "incumbent") << d.dump();
    if (d["winner"] == "challenger") {
      EXPECT_EQ(d["method"], "paired, busy, confirmed by a second run");
      EXPECT_GT(d["first_ratio"]["ci95"][0].get<double>(), 1.0);
      EXPECT_GT(d["ratio"]["ci95"][0].get<double>(), 1.0);
      EXPECT_EQ(j["best"]["iteration"], 2);
    } else {
      EXPECT_EQ(j["best"]["iteration"], 1);
    }
  } else {
    EXPECT_EQ(d["method"], "paired");
    EXPECT_EQ(d["winner"], "challenger") << d.dump();
    EXPECT_GT(d["ratio"]["ci95"][0].get<double>(), 1.0);
    EXPECT_EQ(j["best"]["iteration"], 2);
  }
}

}  // namespace kforge::modes

namespace kforge::modes {

// Without a GPU the cuda target cannot judge a kernel: `auto --target cuda` says why (the
// target's own reason) and stops before the model is called or a session is recorded.
TEST_F(AutoLoopTest, CudaTargetWithoutADeviceIsRefusedBeforeAnyModelCall) {
  const auto* cuda = target::find_target("cuda");
  ASSERT_NE(cuda, nullptr);
  const std::string missing = cuda->unavailable_reason();
  if (missing.empty()) GTEST_SKIP() << "a CUDA device is present: the refusal cannot happen here";
  script({{"planner", {kPlan}}, {"coder", {rms::block(rms::kSlow)}}});
  auto r = run(
      {"auto", "12p_rmsnorm", "--target", "cuda", "--size", "ci", "--model", model(), "--json"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_THAT(r.err, HasSubstr("kforge auto --target cuda: " + missing));
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_FALSE(std::filesystem::exists(dir_ / "log.jsonl"));  // no request reached the model
  EXPECT_FALSE(std::filesystem::exists(dir_ / "state" / "sessions"));
}

}  // namespace kforge::modes
