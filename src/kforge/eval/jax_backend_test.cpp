// The JAX backend decision for Pallas kernels, on made-up machines (a venv and a /dev folder of
// empty files standing in for device nodes): which backend for which facts, the timing basis and
// interpret mode that follow, and exactly which device nodes the worker's Landlock view grants.
// No GPU or TPU was used: this is the host logic only.
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>

#include "kforge/core/fs.h"
#include "kforge/core/landlock.h"
#include "kforge/eval/eval_test_util.h"
#include "kforge/eval/jax_backend.h"
#include "kforge/eval/python_kernel.h"
#include "kforge/eval/runner_process.h"

namespace kforge::eval {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::Not;

class JaxBackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = test_state_dir("jax-backend");
    site_ = root_ / "venv" / "lib" / "python3.12" / "site-packages";
    std::filesystem::create_directories(site_ / "jax");
    std::filesystem::create_directories(root_ / "dev");
  }
  void TearDown() override { std::filesystem::remove_all(root_); }

  void touch(const std::filesystem::path& p) {
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p).put('\n');
  }
  void nvidia_gpu() {
    for (const char* n : {"nvidiactl", "nvidia-uvm", "nvidia-uvm-tools", "nvidia0", "nvidia1"})
      touch(root_ / "dev" / n);
  }
  void cuda_plugin() { std::filesystem::create_directories(site_ / "jax_plugins" / "xla_cuda12"); }
  JaxBackend decide() { return decide_jax_backend(probe_jax_machine(root_ / "venv", dev())); }
  std::filesystem::path dev() const { return root_ / "dev"; }

  std::filesystem::path root_, site_;
};

}  // namespace

TEST_F(JaxBackendTest, NothingFoundIsTheCpuInInterpretModeWithNoDevices) {
  touch(dev() / "null");
  touch(dev() / "nvme0");  // not a device JAX runs on
  auto b = decide();
  EXPECT_EQ(b.platform, "cpu");
  EXPECT_EQ(b.timing_basis, "interpret (cpu)");
  EXPECT_TRUE(b.interpret);
  EXPECT_THAT(b.device_nodes, IsEmpty());
  EXPECT_EQ(b.why, "no GPU or TPU");
}

TEST_F(JaxBackendTest, AGpuWithTheCudaPluginIsTheGpuWithExactlyItsNodes) {
  nvidia_gpu();
  touch(dev() / "accel0");  // another backend's node is not granted
  touch(dev() / "nvidia-modeset");
  cuda_plugin();
  auto b = decide();
  EXPECT_EQ(b.platform, "cuda");
  EXPECT_EQ(b.timing_basis, "gpu");
  EXPECT_FALSE(b.interpret);
  EXPECT_THAT(b.device_nodes,
              ElementsAre(dev() / "nvidia-uvm", dev() / "nvidia-uvm-tools", dev() / "nvidia0",
                          dev() / "nvidia1", dev() / "nvidiactl"));
  // A plugin installed as the jax_cuda12_plugin package counts the same.
  std::filesystem::remove_all(site_ / "jax_plugins");
  std::filesystem::create_directories(site_ / "jax_cuda12_plugin");
  EXPECT_EQ(decide().platform, "cuda");
}

TEST_F(JaxBackendTest, HalfAPairIsTheCpuAndSaysWhatIsMissing) {
  nvidia_gpu();
  auto no_plugin = decide();
  EXPECT_EQ(no_plugin.platform, "cpu");
  EXPECT_THAT(no_plugin.device_nodes, IsEmpty());
  EXPECT_THAT(no_plugin.why, ::testing::HasSubstr("no JAX CUDA plugin"));

  std::filesystem::remove_all(dev());
  std::filesystem::create_directories(dev());
  cuda_plugin();
  auto no_gpu = decide();
  EXPECT_EQ(no_gpu.platform, "cpu");
  EXPECT_EQ(no_gpu.why, "JAX's CUDA plugin, but no NVIDIA device");
  // The control node alone (a driver loaded, no GPU bound) is no device.
  touch(dev() / "nvidiactl");
  EXPECT_EQ(decide().platform, "cpu");

  std::filesystem::remove_all(site_ / "jax_plugins");
  touch(dev() / "accel0");
  auto no_libtpu = decide();
  EXPECT_EQ(no_libtpu.platform, "cpu");
  EXPECT_THAT(no_libtpu.why, ::testing::HasSubstr("no libtpu"));
}

TEST_F(JaxBackendTest, TpuChipsWithLibtpuAreTheTpuWithTheirNodes) {
  for (const char* n : {"accel0", "accel1", "accelerometer"}) touch(dev() / n);
  touch(dev() / "vfio" / "0");
  std::filesystem::create_directories(site_ / "libtpu");
  auto b = decide();
  EXPECT_EQ(b.platform, "tpu");
  EXPECT_EQ(b.timing_basis, "tpu");
  EXPECT_FALSE(b.interpret);
  EXPECT_THAT(b.device_nodes, ElementsAre(dev() / "accel0", dev() / "accel1", dev() / "vfio/0"));
}

TEST_F(JaxBackendTest, TheTimingBasisOfEachPlatform) {
  EXPECT_EQ(timing_basis_for("cpu"), "interpret (cpu)");
  EXPECT_EQ(timing_basis_for("cuda"), "gpu");
  EXPECT_EQ(timing_basis_for("tpu"), "tpu");
}

// The worker's launch on each backend: JAX_PLATFORMS, and the device nodes in its view read-write
// for the pallas kernel and its XLA baseline alike, none for a PyTorch peer or on the CPU.
TEST_F(JaxBackendTest, TheWorkersViewGrantsExactlyTheBackendsNodes) {
  if (!std::filesystem::exists(python_worker_script()))
    GTEST_SKIP() << "the Python worker is not built";
  auto scratch = root_ / "scratch";
  std::filesystem::create_directories(scratch);
  touch(scratch / "kernel.py");
  JaxBackend gpu;
  gpu.platform = "cuda";
  gpu.timing_basis = "gpu";
  gpu.interpret = false;
  gpu.device_nodes = {dev() / "nvidiactl", dev() / "nvidia0"};
  PythonKernel pallas{scratch / "kernel.py", "kernel", "pallas"};
  auto on_gpu = python_launch(pallas, scratch, 1, gpu);
  if (!on_gpu) GTEST_SKIP() << on_gpu.error().message;  // no venv here
  EXPECT_THAT(on_gpu->env, Contains("JAX_PLATFORMS=cuda"));
  for (const auto& node : gpu.device_nodes) EXPECT_THAT(on_gpu->view.write_files, Contains(node));
  EXPECT_THAT(on_gpu->view.read_dirs, Contains(std::filesystem::path("/proc/driver/nvidia")));

  PythonKernel xla{scratch / "kernel.py", "workload", "jax"};
  auto baseline = python_launch(xla, scratch, 1, gpu);
  ASSERT_TRUE(baseline) << baseline.error().message;
  EXPECT_THAT(baseline->view.write_files, Contains(dev() / "nvidia0"));
  PythonKernel torch{scratch / "kernel.py", "baseline", "torch"};
  auto peer = python_launch(torch, scratch, 1, gpu);
  ASSERT_TRUE(peer) << peer.error().message;
  EXPECT_THAT(peer->view.write_files, Not(Contains(dev() / "nvidia0")));

  auto on_cpu = python_launch(pallas, scratch, 1, JaxBackend{});
  ASSERT_TRUE(on_cpu) << on_cpu.error().message;
  EXPECT_THAT(on_cpu->env, Contains("JAX_PLATFORMS=cpu"));
  EXPECT_THAT(on_cpu->view.write_files, ElementsAre(std::filesystem::path("/dev/null")));
}

// A worker asked for a backend the machine lacks (CUDA here, which has no GPU) fails before it
// loads the kernel, saying which backend it was asked for, which JAX found and what may be the
// cause; it never runs the kernel on the CPU in its place. For the XLA baseline and a Pallas
// kernel alike. (On the H200 the worker's address space hid the GPU from JAX; that message named
// no cause.)
TEST_F(JaxBackendTest, AWorkerWithoutTheBackendItWasAskedForSaysWhichAndWhy) {
  if (!std::filesystem::exists(python_worker_script()))
    GTEST_SKIP() << "the Python worker is not built";
  if (this_jax_backend().platform == "cuda") GTEST_SKIP() << "this machine has the CUDA backend";
  auto scratch = root_ / "scratch";
  std::filesystem::create_directories(scratch);
  touch(scratch / "kernel.py");
  JaxBackend gpu;
  gpu.platform = "cuda";
  gpu.timing_basis = "gpu";
  gpu.interpret = false;
  for (const char* framework : {"pallas", "jax"}) {
    PythonKernel kernel{scratch / "kernel.py", "kernel", framework};
    auto launch = python_launch(kernel, scratch, 1, gpu);
    if (!launch) GTEST_SKIP() << launch.error().message;  // no venv here
    // The ruleset's descriptor must not be one the child's dup2s take (0-3): RunnerProcess
    // applies it after them. kforge's own launches hold lower descriptors already.
    const int placeholder = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    auto ruleset = core::LandlockRuleset::prepare(launch->view);
    ::close(placeholder);
    ASSERT_TRUE(ruleset) << ruleset.error().message;
    auto proc = RunnerProcess::start(1, scratch, {launch->argv, launch->env, &*ruleset, {}, true});
    ASSERT_TRUE(proc) << proc.error().message;
    // The setup alone, with no buffers: the backend is checked before anything else.
    ASSERT_TRUE(proc->send({{"op", "kernel"},
                            {"input_sets", 1},
                            {"output_sets", 1},
                            {"threads", 1},
                            {"cpu_seconds", 120},
                            {"memory_bytes", 1 << 30},
                            {"python",
                             {{"module", (scratch / "kernel.py").string()},
                              {"callable", "kernel"},
                              {"framework", framework},
                              {"task_dir", scratch.string()}}}}));
    auto reply = proc->receive(std::chrono::steady_clock::now() + std::chrono::seconds(120));
    ASSERT_TRUE(reply) << reply.error().message << "\n" << proc->output();
    EXPECT_EQ(reply->body.value("op", ""), "error") << reply->body.dump();
    const auto message = reply->body.value("message", "");
    EXPECT_THAT(message, ::testing::HasSubstr("asked for the 'cuda' backend; JAX found ['cpu"))
        << framework;
    // This machine has no NVIDIA driver: the message says what is missing.
    if (!std::filesystem::exists("/dev/nvidiactl")) {
      EXPECT_THAT(message, ::testing::HasSubstr("/dev/nvidiactl cannot be seen")) << message;
    }
    proc->wait(std::chrono::steady_clock::now() + std::chrono::seconds(30));
  }
}

// XLA's persistent compile cache is shared by trusted code only: the XLA baseline and the peers
// name it and may write it; a Pallas candidate names none and can neither read nor write the
// per-user cache (an entry it wrote could be the next XLA baseline's code).
TEST_F(JaxBackendTest, OnlyTrustedWorkersShareTheXlaCompileCache) {
  if (!std::filesystem::exists(python_worker_script()))
    GTEST_SKIP() << "the Python worker is not built";
  auto scratch = root_ / "scratch";
  touch(scratch / "kernel.py");
  const auto cache = core::user_cache_dir() / "python";
  const std::string cache_env = "JAX_COMPILATION_CACHE_DIR=" + (cache / "jax").string();
  auto names_a_jax_cache = [](const std::vector<std::string>& env) {
    return std::any_of(env.begin(), env.end(), [](const std::string& v) {
      return v.rfind("JAX_COMPILATION_CACHE_DIR=", 0) == 0;
    });
  };
  for (const char* framework : {"jax", "torch", "torch-compile"}) {
    auto trusted =
        python_launch({scratch / "kernel.py", "workload", framework}, scratch, 1, JaxBackend{});
    if (!trusted) GTEST_SKIP() << trusted.error().message;  // no venv here
    EXPECT_THAT(trusted->env, Contains(cache_env)) << framework;
    EXPECT_THAT(trusted->view.write_dirs, Contains(cache)) << framework;
  }
  auto pallas =
      python_launch({scratch / "kernel.py", "kernel", "pallas"}, scratch, 1, JaxBackend{});
  ASSERT_TRUE(pallas) << pallas.error().message;
  EXPECT_FALSE(names_a_jax_cache(pallas->env));
  EXPECT_THAT(pallas->view.write_dirs, Not(Contains(cache)));
  EXPECT_THAT(pallas->view.read_dirs, Not(Contains(cache)));
}

}  // namespace kforge::eval
