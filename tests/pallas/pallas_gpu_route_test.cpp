// The pallas target's GPU route (targets/pallas_gpu.h) run here without a GPU: the device
// processes in host-memory mode (torch CPU tensors as the device's buffers, JAX's CPU backend,
// interpret mode), driven by the GPU judge exactly as on a GPU. What it proves: a Pallas kernel is
// checked on the secret sets and timed in batches with its inputs made fresh on the "device" (the
// judge compares the last call's inputs with its own perturbation, bit for bit) against each kind
// of partner the route has: the torch peer (kforge_cuda_worker.py) and XLA (the same device worker
// as the kernel). What only a GPU can show (the times) is listed in docs/pallas.md.
#include <gtest/gtest.h>

#include <algorithm>

#include "kforge/core/paths.h"
#include "kforge/core/python_env.h"
#include "kforge/core/task_loader.h"
#include "kforge/eval/eval_test_util.h"
#include "kforge/targets/pallas_gpu.h"
#include "kforge/targets/pallas_target.h"
#include "kforge/toolchain/cpp_compiler.h"
#include "pallas_kernels.h"

namespace kforge::eval {
namespace {

class PallasGpuRouteTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    state_ = new std::filesystem::path(test_state_dir("pallas-gpu-route"));
    compiler_ =
        new toolchain::CppCompiler({.cache_dir = test_compile_cache(),
                                    .include_dir = core::source_dir() / "bench" / "include"});
    target::ToolchainSettings s;
    s.cache_dir = test_compile_cache();
    pallas_ = target::PallasTarget().make_compiler(s).release();
    auto spec = core::load_task(core::source_dir() / "bench" / "jaxbench" / "12p_rmsnorm");
    ASSERT_TRUE(spec.ok()) << spec.error().message;
    spec_ = new core::TaskSpec(std::move(*spec));
  }
  static void TearDownTestSuite() {
    std::filesystem::remove_all(*state_);
    delete pallas_;
    delete compiler_;
    delete spec_;
    delete state_;
  }
  void SetUp() override {
    ASSERT_TRUE(std::filesystem::exists(core::python_executable()))
        << "no Python environment at " << core::python_env_dir()
        << ": scripts/setup makes it (KFORGE_PYENV names another)";
  }

  // kernel.py `source` on 12p_rmsnorm at the ci size, by the GPU route in host-memory mode.
  Evaluation run(const std::string& source, const std::string& peer,
                 const std::string& dtype = "f32") {
    auto ctx = TaskContext::create(*spec_, "ci", *compiler_, *state_);
    EXPECT_TRUE(ctx.ok());
    if (!ctx.ok()) return {};
    EvalOptions o;
    o.time = true;
    o.time_budget_s = 0.3;
    o.min_pairs = 3;
    o.call_timeout_s = 60;
    o.dtype = dtype;
    o.peer = peer;
    o.kernel_framework = "pallas";
    return target::evaluate_pallas_gpu(*ctx, *pallas_, source, "kernel.py", o,
                                       {.backend = {}, .host_memory = true});
  }

  static inline std::filesystem::path* state_ = nullptr;
  static inline toolchain::CppCompiler* compiler_ = nullptr;
  static inline toolchain::Compiler* pallas_ = nullptr;
  static inline core::TaskSpec* spec_ = nullptr;
};

// --partner torch on the pallas target: the torch peer on the device beside the Pallas kernel;
// both timed by the same batches (inputs fresh on the device, L2 flushed, the call alone).
TEST_F(PallasGpuRouteTest, AKernelPairedWithTheTorchPeerIsCheckedAndTimedOnTheDevice) {
  auto e = run(kernel_with("", "    pass"), "torch");
  ASSERT_EQ(e.verdict, Verdict::correct) << e.reason << "\n" << e.kernel_output;
  EXPECT_EQ(e.partner, "torch");
  EXPECT_FALSE(e.partner_failed);
  EXPECT_NE(e.timing_method.find("inputs made fresh on the device"), std::string::npos)
      << e.timing_method;
  ASSERT_TRUE(e.candidate && e.baseline);
  EXPECT_GE(e.candidate->samples, 3);
  EXPECT_EQ(e.timing_basis, "interpret (cpu)");  // host memory: an interpreter's times
  EXPECT_FALSE(e.timing_is_performance());
  EXPECT_GT(e.landlock_abi, 0);
}

// The pallas target's own partner, XLA, in the same device worker as the kernel.
TEST_F(PallasGpuRouteTest, AKernelPairedWithXlaIsTimedTheSameWay) {
  auto e = run(kernel_with("", "    pass"), "xla");
  ASSERT_EQ(e.verdict, Verdict::correct) << e.reason << "\n" << e.kernel_output;
  EXPECT_EQ(e.partner, "xla");
  EXPECT_NE(e.timing_method.find("inputs made fresh on the device"), std::string::npos)
      << e.timing_method;
  ASSERT_TRUE(e.candidate && e.baseline);
}

// The device worker keeps the walls of the CPU route: a kernel with no pallas_call is refused
// before its first call, and one that reads the task's files meets its Landlock view.
TEST_F(PallasGpuRouteTest, TheDeviceWorkerRefusesAJnpOnlyKernel) {
  const std::string jnp_only =
      "import jax.numpy as jnp\nimport kforge_task as T\n\n"
      "def kernel(x, scale):\n"
      "    ms = jnp.mean(x * x, axis=-1, keepdims=True)\n"
      "    return x * (1.0 / jnp.sqrt(ms + T.eps)) * scale\n";
  auto e = run(jnp_only, "xla");
  EXPECT_NE(e.verdict, Verdict::correct);
  EXPECT_NE(e.reason.find("no pallas_call"), std::string::npos) << e.reason;
}

TEST_F(PallasGpuRouteTest, TheDeviceWorkerHoldsTheKernelInItsLandlockView) {
  auto path = (spec_->dir / "workload.py").string();
  std::reverse(path.begin(), path.end());  // past the checker's literal-path fence
  auto e = run(kernel_with("import numpy as np\n", "    getattr(np, 'from' + 'file')('" + path +
                                                       "'[::-1], dtype=np.uint8)"),
               "xla");
  EXPECT_NE(e.verdict, Verdict::correct) << e.reason;
  EXPECT_NE(e.reason.find("Permission denied"), std::string::npos) << e.reason;
}

TEST_F(PallasGpuRouteTest, BF16OnTheGpuRouteIsRefusedSayingWhy) {
  auto e = run(kernel_with("", "    pass"), "xla", "bf16");
  EXPECT_NE(e.verdict, Verdict::correct);
  EXPECT_NE(e.reason.find("--dtype bf16 on a GPU is not judged yet"), std::string::npos)
      << e.reason;
}

}  // namespace
}  // namespace kforge::eval
