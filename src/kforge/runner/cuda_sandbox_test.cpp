// The device process's walls, built without a GPU: the device nodes it opens, the Landlock view
// (read-write only the NVIDIA nodes; the system libraries only for trusted kernels), the seccomp
// policy as libseccomp renders it (the driver's ioctls allowed, processes, sockets other than a
// refused AF_UNIX, exec and ptrace trapped, files never created), and the loader's answer for a
// library's dependencies. The walls at work on a live process are in eval's
// cuda_process_device_test (kforge-run-cuda --host-memory) and, on a GPU, in scripts/gpu-check.
#include "kforge/runner/cuda_sandbox.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>

#include "kforge/core/subprocess.h"

namespace kforge::runner {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class CudaWallsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dev_ = std::filesystem::temp_directory_path() /
           ("kforge-cuda-walls-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dev_ / "nvidia-caps");
    for (const char* n : {"nvidiactl", "nvidia0", "nvidia1", "nvidia-uvm", "nvidia-uvm-tools",
                          "nvidia-modeset", "nvidiafb", "null", "urandom", "sda"})
      std::ofstream(dev_ / n) << "";
  }
  void TearDown() override { std::filesystem::remove_all(dev_); }

  static bool has(const std::vector<std::filesystem::path>& v, const std::filesystem::path& p) {
    return std::find(v.begin(), v.end(), p) != v.end();
  }

  std::filesystem::path dev_;
};

// The rules libseccomp rendered for one system call ("" when it has none: the default, a trap).
std::string rules_for(const std::string& pfc, const std::string& name) {
  auto at = pfc.find("# filter for syscall \"" + name + "\"");
  if (at == std::string::npos) return "";
  auto end = pfc.find("# filter for syscall", at + 1);
  if (end == std::string::npos) end = pfc.find("# default action", at);
  return pfc.substr(at, end - at);
}

}  // namespace

TEST_F(CudaWallsTest, TheDeviceNodesAreTheDriversComputeNodesOnly) {
  auto nodes = nvidia_device_nodes(dev_);
  EXPECT_EQ(nodes, (std::vector<std::filesystem::path>{dev_ / "nvidia-uvm",
                                                       dev_ / "nvidia-uvm-tools", dev_ / "nvidia0",
                                                       dev_ / "nvidia1", dev_ / "nvidiactl"}));
}

TEST_F(CudaWallsTest, OnlyTheDeviceNodesAreWritable) {
  const std::filesystem::path lib = "/somewhere/kernel.so", cudart = "/opt/cuda/libcudart.so.13";
  auto v = cuda_runner_view({lib, {cudart}, false, dev_});
  EXPECT_EQ(v.write_files, nvidia_device_nodes(dev_));
  EXPECT_TRUE(v.write_dirs.empty());
  EXPECT_FALSE(has(v.write_files, dev_ / "nvidia-modeset"));
  EXPECT_FALSE(has(v.write_files, dev_ / "sda"));
  // The kernel and what it links are readable; the libraries' folders are not (no dlopen of
  // cuBLAS from beside libcudart), nor the system's.
  EXPECT_TRUE(has(v.read_files, lib));
  EXPECT_TRUE(has(v.read_files, cudart));
  EXPECT_FALSE(has(v.read_dirs, "/opt/cuda"));
  EXPECT_FALSE(has(v.read_dirs, "/usr/lib"));
  EXPECT_TRUE(has(v.read_dirs, "/proc/driver/nvidia"));
  EXPECT_TRUE(has(v.read_dirs, dev_ / "nvidia-caps"));
  for (const auto& d : v.read_dirs) {
    EXPECT_NE(d, "/");
    EXPECT_NE(d, "/home");
    EXPECT_NE(d, "/tmp");
  }
  EXPECT_TRUE(v.deny_tcp);
  EXPECT_TRUE(v.scope_ipc);
}

TEST_F(CudaWallsTest, ATrustedKernelMayReadTheLibrariesItLoadsLazily) {
  auto v = cuda_runner_view({"/k/baseline.so", {"/venv/torch/lib/libtorch_cuda.so"}, true, dev_});
  EXPECT_TRUE(has(v.read_dirs, "/usr/lib"));
  EXPECT_TRUE(has(v.read_dirs, "/venv/torch/lib"));
  EXPECT_EQ(v.write_files, nvidia_device_nodes(dev_));  // still nothing else writable
}

TEST(CudaKernelFilter, AllowsTheDriversIoctlsAndTrapsProcessesSocketsAndExec) {
  auto pfc = cuda_kernel_filter_text(3);
  ASSERT_TRUE(pfc) << pfc.error().message;
  // Everything not listed traps.
  EXPECT_THAT(*pfc, HasSubstr("# default action\n  action TRAP;"));
  for (const char* forbidden :
       {"fork", "vfork", "execve", "execveat", "ptrace", "kill", "connect", "bind", "sendmsg",
        "process_vm_writev", "seccomp", "mount", "bpf", "unshare", "setns"})
    EXPECT_EQ(rules_for(*pfc, forbidden), "") << forbidden << " has a rule";
  // sendto only on the channel (fd 3).
  EXPECT_THAT(rules_for(*pfc, "sendto"), HasSubstr("if ($a0.lo32 == 3)\n        action ALLOW"));
  // clone only with CLONE_THREAD (0x10000); clone3 answers ENOSYS (glibc falls back to clone).
  EXPECT_THAT(rules_for(*pfc, "clone"), HasSubstr("& 0x00010000 == 65536"));
  EXPECT_THAT(rules_for(*pfc, "clone3"), HasSubstr("action ERRNO(38)"));
  // socket: AF_UNIX (1) refused with EACCES, never allowed; other families trap.
  const auto socket = rules_for(*pfc, "socket");
  EXPECT_THAT(socket, HasSubstr("if ($a0.lo32 == 1)\n        action ERRNO(13)"));
  EXPECT_THAT(socket, Not(HasSubstr("ALLOW")));
  // ioctl: the resource manager's type 'F' (0x4600 = 17920), nvidia-uvm's plain numbers and its
  // initialize/deinitialize (0x30000001/2); isatty answers ENOTTY.
  const auto ioctl = rules_for(*pfc, "ioctl");
  EXPECT_THAT(ioctl, HasSubstr("& 0x0000ff00 == 17920"));
  EXPECT_THAT(ioctl, HasSubstr("== 805306369"));
  EXPECT_THAT(ioctl, HasSubstr("== 805306370"));
  EXPECT_THAT(ioctl, HasSubstr("== 21505)\n        action ERRNO(25)"));
  // Files: read-only or read-write, never created, truncated or appended (mask 0x643).
  const auto openat = rules_for(*pfc, "openat");
  EXPECT_THAT(openat, HasSubstr("& 0x00000643 == 0"));
  EXPECT_THAT(openat, HasSubstr("& 0x00000643 == 2"));
  EXPECT_THAT(openat, Not(HasSubstr("== 64")));  // O_CREAT
  // No handler for SIGSYS (31): a trapped call cannot be hidden.
  EXPECT_THAT(rules_for(*pfc, "rt_sigaction"), HasSubstr("if ($a0.lo32 == 31)\n      else"));
  // Executable memory only from a file mapping, never writable, never added by mprotect.
  EXPECT_THAT(rules_for(*pfc, "mprotect"), HasSubstr("& 0x00000004 == 0"));
  EXPECT_THAT(rules_for(*pfc, "prctl"), HasSubstr("== 15"));  // PR_SET_NAME only (and GET)
}

TEST(CudaKernelLibraries, TheLoaderResolvesWhatALibraryLinksWithoutRunningIt) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("kforge-cuda-deps-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  // A constructor that would leave a mark if the loader ran it.
  std::ofstream(dir / "k.cpp")
      << "#include <cstdio>\n#include <string>\n"
         "__attribute__((constructor)) static void mark() {"
         " std::fopen(\""
      << (dir / "ran").string()
      << "\", \"w\"); }\n"
         "extern \"C\" int kernel() { return std::string(\"x\").size(); }\n";
  auto built = core::run_process(
      {"g++", "-shared", "-fPIC", "-o", (dir / "k.so").string(), (dir / "k.cpp").string()});
  ASSERT_TRUE(built.success()) << built.err;
  auto deps = resolve_dependencies(dir / "k.so");
  ASSERT_TRUE(deps) << deps.error().message;
  EXPECT_TRUE(std::any_of(deps->begin(), deps->end(),
                          [](const auto& p) { return p.filename() == "libstdc++.so.6"; }));
  for (const auto& p : *deps) {
    EXPECT_TRUE(p.is_absolute()) << p;
    EXPECT_TRUE(std::filesystem::exists(p)) << p;
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "ran"));
  std::filesystem::remove_all(dir);
}

}  // namespace kforge::runner
