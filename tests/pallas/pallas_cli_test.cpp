// The pallas target through the kforge binary at the ci size: `show --target pallas` prints the
// Python signature, `eval --target pallas` judges a kernel.py (table and --json say the time is an
// interpreter's), `bench --target pallas` states the JAX backend in its header, and --dtype is
// refused for a target that has no use for it.
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

}  // namespace kforge::modes
