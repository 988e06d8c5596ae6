#pragma once
// For scenario tests that drive the kforge binary itself: a private state folder, the scripted
// model (tests/scripted_model.py) behind the cmd: provider, and the requests it received.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kforge/core/fs.h"
#include "kforge/core/paths.h"
#include "kforge/core/subprocess.h"
#include "kforge/eval/eval_test_util.h"

namespace kforge::modes {

class CliScenario : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("kforge-cli-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override {
    if (!::testing::Test::HasFailure()) std::filesystem::remove_all(dir_);
  }

  std::string kforge() const {
    const char* bin = std::getenv("KFORGE_BIN_DIR");
    return (bin ? std::filesystem::path(bin) : core::executable_dir()).string() + "/kforge";
  }
  // The project's Python environment runs the script when there is one: `python3` from PATH may
  // be a version manager's shim, whose shell scripts cost more than half a second a model call.
  std::string model() const {
    auto venv_python =
        std::filesystem::path(kforge()).parent_path().parent_path() / "pyenv" / "bin" / "python";
    std::string python = std::filesystem::exists(venv_python) ? venv_python.string() : "python3";
    return "cmd:" + python + " " + (core::source_dir() / "tests" / "scripted_model.py").string() +
           " " + (dir_ / "script.json").string() + " " + (dir_ / "log.jsonl").string();
  }
  std::vector<std::string> env() const {
    // Peaks only set the roofline here: a short measurement, once per build tree's test cache.
    // No wait for a quiet machine: under ctest -j2 another test always runs, so a wait would only
    // add a second to every timing (the wait itself is quiet_wait_test's; a busy run is marked).
    return {"KFORGE_DIR=" + (dir_ / "state").string(),
            "KFORGE_CACHE_DIR=" + eval::test_user_cache().string(),
            "KFORGE_PROGRESS=0",
            "KFORGE_PEAK_BUDGET_S=3",
            "KFORGE_QUIET_WAIT_S=0",
            "KFORGE_REPORT_PEERS=none"};
  }
  void script(const nlohmann::json& j) {
    ASSERT_TRUE(core::write_atomic(dir_ / "script.json", j.dump()).ok());
  }

  core::ProcessResult run(std::vector<std::string> args, const std::string& stdin_data = "",
                          int timeout_s = 600) {
    args.insert(args.begin(), kforge());
    return core::run_process(
        args, {.timeout = std::chrono::seconds(timeout_s),
               .cwd = dir_,
               .extra_env = env(),
               .stdin_data = stdin_data.empty() ? std::optional<std::string>() : stdin_data});
  }

  // `kforge search` over the three strategies of rms::kThreeStrategies (written to
  // strategies.toml by the caller) in parallel, one expansion at a time, without tuning or fixes.
  std::vector<std::string> parallel_search_argv() const {
    return {kforge(),
            "search",
            "12p_rmsnorm",
            "--size",
            "ci",
            "--model",
            model(),
            "--strategies",
            (dir_ / "strategies.toml").string(),
            "--algorithm",
            "parallel",
            "--width",
            "3",
            "--jobs",
            "1",
            "--budget",
            "0.2",
            "--tune-budget",
            "0",
            "--debug-attempts",
            "0",
            "--quiet"};
  }

  // The requests the model received for a role, each as its messages joined.
  std::vector<std::string> prompts(const std::string& role) const {
    std::vector<std::string> out;
    std::ifstream in(dir_ / "log.jsonl");
    for (std::string line; std::getline(in, line);) {
      auto j = nlohmann::json::parse(line);
      if (j["role"] != role) continue;
      std::string all;
      for (const auto& m : j["messages"]) all += m["content"].get<std::string>() + "\n";
      out.push_back(all);
    }
    return out;
  }

  std::filesystem::path dir_;
};

// Kernels and replies for 12p_rmsnorm at the ci size.
namespace rms {

inline std::string block(const std::string& body) {
  return "```cpp\n#include \"kforge_task.h\"\n#include <cmath>\n" + body + "```\n";
}

inline const char* kFast = R"(extern "C" void kernel(const float* x, const float* scale, float* y) {
  using namespace task;
  for (std::int64_t r = 0; r < B * S; ++r) {
    float ss = 0;
#pragma omp simd reduction(+ : ss)
    for (std::int64_t d = 0; d < D; ++d) ss += x[r * D + d] * x[r * D + d];
    float inv = 1.0f / std::sqrt(ss / D + eps);
    for (std::int64_t d = 0; d < D; ++d) y[r * D + d] = x[r * D + d] * inv * scale[d];
  }
}
)";

inline const char* kSlow = R"(extern "C" void kernel(const float* x, const float* scale, float* y) {
  using namespace task;
  for (int rep = 0; rep < 40; ++rep)
    for (std::int64_t r = 0; r < B * S; ++r) {
      double ss = 0;
      for (std::int64_t d = 0; d < D; ++d) ss += double(x[r * D + d]) * x[r * D + d];
      float inv = float(1.0 / std::sqrt(ss / D + eps));
      for (std::int64_t d = 0; d < D; ++d) y[r * D + d] = x[r * D + d] * inv * scale[d];
    }
}
)";

inline const char* kWrong =
    R"(extern "C" void kernel(const float* x, const float* scale, float* y) {
  using namespace task;
  for (std::int64_t r = 0; r < B * S; ++r)
    for (std::int64_t d = 0; d < D; ++d) y[r * D + d] = x[r * D + d];
}
)";

inline const char* kBroken =
    R"(extern "C" void kernel(const float* x, const float* scale, float* y) {
  y[0] = undeclared_thing;
}
)";

inline std::string plan(const std::string& strategy) {
  return "## Analysis\nRMSNorm, memory-bound.\n## Bottleneck\nBandwidth.\n## Strategy\n" +
         strategy +
         "\n## Blocking\nNone.\n## Vectorization\nThe D loop.\n## Threading\nRows.\n## "
         "Tunables\nnone\n## Expected gain\n2x.\n";
}

inline std::string fix(const std::string& body, const std::string& cause) {
  return block(body) + "FIX_SUMMARY:\nerror: see above\ncause: " + cause + "\nfix: rewrote it\n";
}

// A catalogue of three strategies whose text carries a marker, and a script whose replies are
// chosen by it: the fast kernel, the slow one and the wrong one.
inline const char* kThreeStrategies = R"(replace = true
[[strategy]]
id = "go_fast"
family = "compute"
text = "STRATEGY-FAST: vectorize the reduction."
[[strategy]]
id = "go_slow"
family = "memory"
text = "STRATEGY-SLOW: recompute everything in double."
[[strategy]]
id = "go_wrong"
family = "algorithm"
text = "STRATEGY-WRONG: drop the scale."
)";

inline const char* kProfiled =
    "BOTTLENECK: memory bandwidth\nDIAGNOSIS: scalar loop\nNEEDS_IMPROVEMENT: yes\nSUGGESTION: "
    "AVX2\n";

inline nlohmann::json three_strategy_script() {
  using nlohmann::json;
  return {{"planner",
           {json{{"when", "STRATEGY-FAST"}, {"reply", plan("PLAN-FAST vectorize")}},
            json{{"when", "STRATEGY-SLOW"}, {"reply", plan("PLAN-SLOW double precision")}},
            json{{"when", "STRATEGY-WRONG"}, {"reply", plan("PLAN-WRONG no scale")}},
            plan("PLAN-FAST")}},
          {"coder",
           {json{{"when", "PLAN-FAST"}, {"reply", block(kFast)}},
            json{{"when", "PLAN-SLOW"}, {"reply", block(kSlow)}},
            json{{"when", "PLAN-WRONG"}, {"reply", block(kWrong)}}}},
          {"debugger", {fix(kWrong, "still wrong")}},
          {"profiler", {kProfiled}}};
}

}  // namespace rms
}  // namespace kforge::modes
