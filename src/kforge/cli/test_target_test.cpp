// A target kforge does not ship, to prove what target.h promises: a new target is one class and
// one registration. "scalar" is portable scalar C++ (no OpenMP, no intrinsics) in kernel.cc, built
// by the host compiler and judged by the cpu judge; every question the modes ask of it is
// answered by Target's defaults (no roofline, its baseline timed beside each kernel, no peers).
// Registered by this test binary only (before main, so that the options' choices know it too), it
// runs a scripted `kforge auto --target scalar` in this process through the same door
// (mode_target.h) that auto, search and hitl enter every target by.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <nlohmann/json.hpp>

#include "kforge/cli/app.h"
#include "kforge/cli/errors.h"
#include "kforge/cli/mode_target.h"
#include "kforge/core/paths.h"
#include "kforge/modes/cli_test_util.h"
#include "kforge/targets/cpp_target.h"

namespace kforge::cli {
namespace {

using ::testing::HasSubstr;

class ScalarTarget : public target::Target {
 public:
  explicit ScalarTarget(std::string name = "scalar") : name_(std::move(name)) {}
  std::string_view name() const override { return name_; }
  std::string_view summary() const override { return "portable scalar C++ (a test's target)"; }
  std::string kernel_extension() const override { return ".cc"; }
  core::KernelAbi abi() const override { return {}; }
  std::filesystem::path expert_path(const core::TaskSpec& spec) const override {
    return spec.dir / "expert_scalar.cc";  // none: the suite has no scalar experts
  }
  std::filesystem::path baseline_path(const core::TaskSpec& spec) const override {
    return spec.baseline_path();
  }
  std::unique_ptr<toolchain::Compiler> make_compiler(
      const target::ToolchainSettings& settings) const override {
    return target::make_cpp_compiler(settings);
  }
  toolchain::LinkPolicy link_policy(const toolchain::Compiler&, toolchain::Role) const override {
    return {};
  }
  std::string unavailable_reason() const override { return {}; }
  eval::Evaluation evaluate(const eval::TaskContext& host, toolchain::Compiler&,
                            const std::string& source, const std::string& file_name,
                            const eval::EvalOptions& options) const override {
    return eval::evaluate(host, source, file_name, options);
  }
  target::AgentMaterial agent_material() const override {
    const auto root = core::source_dir();
    return {"portable scalar C++20 (no OpenMP, no intrinsics)", root / "prompts",
            root / "knowledge", root / "strategies" / "cpu.toml"};
  }

 private:
  std::string name_;
};

// The one line a new target takes (here in a test, not in targets.cpp).
const ScalarTarget kScalar;
const target::TargetRegistration kScalarRegistration(kScalar);

const char* kPlan =
    "## Analysis\na\n## Bottleneck\nb\n## Strategy\none row at a time\n## Blocking\nd\n## "
    "Vectorization\nnone\n## Threading\nnone\n## Tunables\nnone\n## Expected gain\ng\n";
const char* kProfile =
    "BOTTLENECK: memory bandwidth\nDIAGNOSIS: d\nNEEDS_IMPROVEMENT: yes\nSUGGESTION: s\n";

class TestTarget : public modes::CliScenario {
 protected:
  // `kforge ARGS...` in this process, with the scenario's environment; stdout and the status.
  int run_here(const std::vector<std::string>& args, std::string& out) {
    std::vector<std::pair<std::string, std::optional<std::string>>> saved;
    for (const auto& kv : env()) {
      const auto eq = kv.find('=');
      const std::string name = kv.substr(0, eq);
      const char* before = std::getenv(name.c_str());
      saved.emplace_back(name, before ? std::optional<std::string>(before) : std::nullopt);
      ::setenv(name.c_str(), kv.substr(eq + 1).c_str(), 1);
    }
    std::vector<std::string> words = {"kforge"};
    words.insert(words.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& w : words) argv.push_back(w.data());
    auto app = make_app();
    int status = -1;
    ::testing::internal::CaptureStdout();
    try {
      app.app->parse(static_cast<int>(argv.size()), argv.data());
      status = app.state->exit_status;
    } catch (const std::exception& e) {
      ADD_FAILURE() << "kforge threw: " << e.what();
    }
    out = ::testing::internal::GetCapturedStdout();
    for (const auto& [name, value] : saved)
      value ? ::setenv(name.c_str(), value->c_str(), 1) : ::unsetenv(name.c_str());
    return status;
  }
};

TEST_F(TestTarget, ANewTargetIsOneClassAndOneRegistration) {
  EXPECT_EQ(target::find_target("scalar"), &kScalar);
  EXPECT_THAT(target::target_names(), ::testing::Contains("scalar"));
  {  // a registration lasts as long as its object
    const ScalarTarget other("scalar-2");
    const target::TargetRegistration registration(other);
    EXPECT_EQ(target::find_target("scalar-2"), &other);
  }
  EXPECT_EQ(target::find_target("scalar-2"), nullptr);

  // The door binds it with its own compiler and refuses what it does not take.
  auto bound = bind_mode_target("auto", "scalar", "", "fastest");
  EXPECT_EQ(&bound.target(), &kScalar);
  EXPECT_NE(bound.bound_compiler(), nullptr);
  EXPECT_EQ(target_words(bound), " --target scalar");
  EXPECT_THROW(bind_mode_target("auto", "scalar", "bf16", ""), UsageError);
  EXPECT_THROW(bind_mode_target("auto", "scalar", "", "torch-compile"), UsageError);

  script({{"planner", {kPlan}},
          {"coder", {modes::rms::block(modes::rms::kSlow)}},
          {"profiler", {kProfile}}});
  std::string out;
  const int status =
      run_here({"auto", "12p_rmsnorm", "--target", "scalar", "--size", "ci", "--model", model(),
                "--iterations", "1", "--tune-budget", "0", "--budget", "0.2", "--json"},
               out);
  EXPECT_EQ(status, 0) << out;

  auto j = nlohmann::json::parse(out, nullptr, false);
  ASSERT_TRUE(j.is_object()) << out;
  ASSERT_EQ(j["iterations"].size(), 1u) << j.dump(2);
  EXPECT_EQ(j["iterations"][0]["verdict"], "correct") << j.dump(2);
  // Judged as its own kernel file, paired with the task's baseline beside it (not timed alone).
  const std::filesystem::path dir = j["dir"].get<std::string>();
  EXPECT_TRUE(std::filesystem::exists(dir / "iter-1" / "kernel.cc"));
  EXPECT_TRUE(std::filesystem::exists(dir / "best.cc"));
  auto report = core::read_text(dir / "report.md");
  ASSERT_TRUE(report.ok());
  EXPECT_THAT(*report, HasSubstr("Target scalar; every kernel paired with PyTorch eager"));
  // The coder was asked for it in the target's fence.
  auto coder = prompts("coder");
  ASSERT_FALSE(coder.empty());
  EXPECT_THAT(coder[0], HasSubstr("```cpp"));
}

}  // namespace
}  // namespace kforge::cli
