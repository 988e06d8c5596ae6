// Suite checks for every task under bench/jaxbench at the ci size (one test per task):
//   - the baseline and the expert (if any) agree with the reference;
//   - an all-zero output and an untouched output are rejected;
//   - the reference output is not degenerate: its spread is far above the tolerance;
//   - different seeds give different inputs.
// KFORGE_SUITE_DIR selects another suite; KFORGE_SUITE_TASKS=a,b limits the tasks.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include "kforge/core/paths.h"
#include "kforge/core/task_header.h"
#include "kforge/core/task_loader.h"
#include "kforge/eval/eval_test_util.h"
#include "kforge/eval/evaluate.h"
#include "kforge/toolchain/cpp_compiler.h"

namespace kforge::eval {
namespace {

std::filesystem::path suite_dir() {
  if (const char* d = std::getenv("KFORGE_SUITE_DIR"); d && *d) return d;
  return core::source_dir() / "bench" / "jaxbench";
}

std::vector<std::string> task_names() {
  std::vector<std::string> names;
  std::string only = std::getenv("KFORGE_SUITE_TASKS") ? std::getenv("KFORGE_SUITE_TASKS") : "";
  for (const auto& dir : core::list_task_dirs(suite_dir())) {
    std::string name = dir.filename().string();
    if (only.empty() || ("," + only + ",").find("," + name + ",") != std::string::npos)
      names.push_back(name);
  }
  return names;
}

// A kernel that writes zeros to every output (or, with write = false, nothing at all).
std::string filler_kernel(const core::ResolvedTask& task, bool write) {
  std::string body;
  if (write)
    for (const auto& t : task.outputs)
      body += "  std::memset(" + t.name + ", 0, " + std::to_string(t.bytes) + ");\n";
  return "#include \"kforge_task.h\"\n#include <cstring>\n" + core::kernel_signature(task) +
         " {\n" + body + "}\n";
}

double spread(const core::ResolvedTensor& t, const unsigned char* data, double& mean_abs) {
  double sum = 0, sum_sq = 0, abs_sum = 0;
  for (std::int64_t i = 0; i < t.numel; ++i) {
    double v = t.dtype == core::DType::f32   ? reinterpret_cast<const float*>(data)[i]
               : t.dtype == core::DType::f64 ? reinterpret_cast<const double*>(data)[i]
               : t.dtype == core::DType::i32
                   ? reinterpret_cast<const std::int32_t*>(data)[i]
                   : static_cast<double>(reinterpret_cast<const std::int64_t*>(data)[i]);
    if (!std::isfinite(v)) continue;
    sum += v;
    sum_sq += v * v;
    abs_sum += std::fabs(v);
  }
  double n = static_cast<double>(t.numel);
  mean_abs = abs_sum / n;
  return std::sqrt(std::max(0.0, sum_sq / n - (sum / n) * (sum / n)));
}

class Suite : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    state_ = test_state_dir("suite-" + GetParam());
    compiler_ = std::make_unique<toolchain::CppCompiler>(
        toolchain::CppCompilerOptions{.cache_dir = test_compile_cache(),
                                      .include_dir = core::source_dir() / "bench" / "include"});
    auto spec = core::load_task(suite_dir() / GetParam());
    ASSERT_TRUE(spec.ok()) << spec.error().message;
    spec_ = std::make_unique<core::TaskSpec>(std::move(*spec));
    auto ctx = TaskContext::create(*spec_, "ci", *compiler_, state_);
    ASSERT_TRUE(ctx.ok()) << ctx.error().message;
    ctx_ = std::make_unique<TaskContext>(std::move(*ctx));
  }
  void TearDown() override { std::filesystem::remove_all(state_); }

  Evaluation check(const std::string& source, const std::string& name, toolchain::Role role) {
    EvalOptions o;
    o.time = false;
    o.role = role;
    o.call_timeout_s = 60;
    return evaluate(*ctx_, source, name, o);
  }
  std::string read(const std::filesystem::path& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

  std::filesystem::path state_;
  std::unique_ptr<toolchain::CppCompiler> compiler_;
  std::unique_ptr<core::TaskSpec> spec_;
  std::unique_ptr<TaskContext> ctx_;
};

TEST_P(Suite, Task) {
  const auto& task = ctx_->task();
  {
    SCOPED_TRACE("the baseline agrees with the reference");
    ASSERT_TRUE(std::filesystem::exists(spec_->baseline_path()))
        << "every task needs a baseline.cpp";
    auto e = check(read(spec_->baseline_path()), "baseline.cpp", toolchain::Role::baseline);
    EXPECT_EQ(e.verdict, Verdict::correct) << e.reason;
  }
  if (std::filesystem::exists(spec_->expert_path())) {
    SCOPED_TRACE("the expert agrees with the reference");
    auto e = check(read(spec_->expert_path()), "expert.cpp", toolchain::Role::expert);
    EXPECT_EQ(e.verdict, Verdict::correct) << e.reason;
  }
  {
    SCOPED_TRACE("an all-zero output is rejected");
    auto e = check(filler_kernel(task, true), "zeros.cpp", toolchain::Role::candidate);
    EXPECT_EQ(e.verdict, Verdict::incorrect) << e.reason;
  }
  {
    SCOPED_TRACE("an untouched output is rejected");
    auto e = check(filler_kernel(task, false), "untouched.cpp", toolchain::Role::candidate);
    EXPECT_EQ(e.verdict, Verdict::incorrect) << e.reason;
  }
  {
    SCOPED_TRACE(
        "different seeds give different inputs, and the reference output is not degenerate");
    auto a = ctx_->make_inputs(1), b = ctx_->make_inputs(2);
    ASSERT_TRUE(a.ok() && b.ok());
    for (std::size_t i = 0; i < task.inputs.size(); ++i) {
      const auto& t = task.inputs[i];
      if (t.init.dist == core::Dist::constant || t.init.dist == core::Dist::arange) continue;
      EXPECT_NE(std::memcmp(a->tensor(i), b->tensor(i), t.bytes), 0)
          << "input '" << t.name << "' does not depend on the seed";
    }
    auto ref = ctx_->reference_outputs(*a, 1);
    ASSERT_TRUE(ref.ok()) << ref.error().message;
    for (std::size_t i = 0; i < task.outputs.size(); ++i) {
      const auto& t = task.outputs[i];
      double mean_abs = 0;
      double s = spread(t, ref->tensor(i), mean_abs);
      double tolerance = task.atol + task.rtol * mean_abs;
      EXPECT_GT(s, 10 * tolerance) << "output '" << t.name << "' barely varies (spread " << s
                                   << ", tolerance " << tolerance << "): a constant could pass";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Jaxbench, Suite, ::testing::ValuesIn(task_names()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace kforge::eval
