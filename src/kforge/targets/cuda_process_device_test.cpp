// The real device process (kforge-run-cuda) driven by the GPU judge, without a GPU: in its
// --host-memory mode the same wire, the same process walls and the same watchdog serve a kernel
// compiled for the host. Proves the plumbing the GPU runs on: a correct kernel passes, a kernel
// that spins is killed by the watchdog and judged a timeout, one that writes its input is caught,
// one that crashes is a runtime error naming the signal, and a timed pair reads back both sides.
#include "kforge/targets/cuda_process_device.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <fstream>

#include "kforge/core/landlock.h"
#include "kforge/core/paths.h"
#include "kforge/core/subprocess.h"
#include "kforge/targets/gpu_batch_timing.h"
#include "kforge/targets/gpu_device_failure.h"
#include "kforge/targets/gpu_judge.h"
#include "kforge/targets/gpu_judge_test_util.h"
#include "kforge/targets/sanitizer_report.h"

namespace kforge::eval {
namespace {

constexpr int kN = 256;

class CudaProcessDeviceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("kforge-cuda-process-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // The host stand-in for a .cu kernel: the same entry, with the stream as a void*.
  std::filesystem::path build(const std::string& body) {
    auto src = dir_ / "kernel.cpp", so = dir_ / "kernel.so";
    std::ofstream(src) << "#include <fcntl.h>\n#include <sys/socket.h>\n#include <unistd.h>\n"
                       << "#include <thread>\n"
                       << "extern \"C\" void kernel(const float* x, const float* y, float* z, "
                          "void* stream) {\n"
                       << body << "\n}\n";
    auto r = core::run_process({"g++", "-O1", "-shared", "-fPIC", "-o", so.string(), src.string()});
    EXPECT_TRUE(r.success()) << r.err;
    return so;
  }
  std::optional<Judgement> check(const std::string& body, double timeout_s = 10,
                                 bool trusted = false) {
    auto device = start_cuda_process_device(
        {.library = build(body), .trusted = trusted, .host_memory = true});
    EXPECT_TRUE(device.ok()) << (device ? "" : device.error().message);
    if (!device) return Judgement{Verdict::runtime_error, "no device"};
    auto buffers = allocate_set(**device, task_);
    EXPECT_TRUE(buffers.ok());
    std::vector<float> x(kN), y(kN), z(kN);
    for (int i = 0; i < kN; ++i) {
      x[i] = 0.5f * i;
      y[i] = 2.0f - i;
      z[i] = x[i] + y[i];
    }
    return gpu_check(**device, *buffers, task_, {floats({x, y})}, {floats({z})}, timeout_s, e_);
  }
  // Five timed pairs, no warm-up, no budget: what the timing tests here time.
  static PairedTimingRequest five_pairs() {
    PairedTimingRequest req;
    req.budget_s = 0;
    req.warmup_s = 0;
    req.min_pairs = req.max_pairs = 5;
    return req;
  }
  std::filesystem::path dir_;
  core::ResolvedTask task_ = add_task(kN);
  Evaluation e_;
};

const char* kAdd = "for (int i = 0; i < 256; ++i) z[i] = x[i] + y[i];";

TEST_F(CudaProcessDeviceTest, ACorrectKernelPassesThroughTheProcess) {
  auto j = check(kAdd);
  EXPECT_FALSE(j) << j->reason;
}

TEST_F(CudaProcessDeviceTest, ASpinningKernelIsKilledByTheWatchdog) {
  const auto start = std::chrono::steady_clock::now();
  auto j = check("for (volatile int spin = 1; spin;) {}", 1.0);
  ASSERT_TRUE(j);
  EXPECT_EQ(j->verdict, Verdict::timeout) << j->reason;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(8));
}

// Ctrl-C while a kernel spins on the device: the wait for its reply sees the flag within 50 ms,
// kills the process and fails the request (the evaluation calls that interrupted).
TEST_F(CudaProcessDeviceTest, CtrlCKillsASpinningKernelAtOnce) {
  std::atomic<bool> cancel{false};
  auto device =
      start_cuda_process_device({.library = build("for (volatile int spin = 1; spin;) {}"),
                                 .host_memory = true,
                                 .cancel = &cancel});
  ASSERT_TRUE(device.ok());
  auto buffers = allocate_set(**device, task_);
  ASSERT_TRUE(buffers.ok());
  std::thread press([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    cancel = true;
  });
  const auto start = std::chrono::steady_clock::now();
  auto call = (*device)->call(buffers->args(), 60);
  press.join();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));
  EXPECT_EQ(call.outcome, DeviceCall::Outcome::failed);
  EXPECT_NE(call.error.find("interrupted"), std::string::npos) << call.error;
}

// The H200's escape through the real process: the call returns at once and a thread of the
// kernel's writes the right sum later. The outputs are peeked the instant the call returns, so the
// late sum is never what the check reads (it was: the plain reads came after it). A write inside
// the settle window is named as work after the return; a later one leaves the outputs poisoned.
TEST_F(CudaProcessDeviceTest, WorkDoneByAThreadAfterTheCallReturnedIsNeverCounted) {
  for (int delay_us : {1000, 20000}) {
    auto j = check("std::thread([=] { usleep(" + std::to_string(delay_us) +
                   "); for (int i = 0; i < 256; ++i) z[i] = x[i] + y[i]; }).detach();");
    ASSERT_TRUE(j) << delay_us;
    EXPECT_TRUE(j->verdict == Verdict::sandbox_violation || j->verdict == Verdict::incorrect)
        << delay_us << " us: " << j->reason;
  }
}

TEST_F(CudaProcessDeviceTest, AThreadComputingOnAfterTheCallReturnedIsCaught) {
  auto j = check(std::string(kAdd) +
                 " std::thread([] { for (volatile long i = 0;; ++i) {} }).detach();");
  ASSERT_TRUE(j);
  EXPECT_EQ(j->verdict, Verdict::sandbox_violation) << j->reason;
  EXPECT_NE(j->reason.find("kept running after the call returned"), std::string::npos) << j->reason;
}

TEST_F(CudaProcessDeviceTest, AKernelWritingItsInputIsCaught) {
  auto j = check(std::string(kAdd) + " const_cast<float*>(x)[7] = 1e9f;");
  ASSERT_TRUE(j);
  EXPECT_EQ(j->verdict, Verdict::input_modified) << j->reason;
}

TEST_F(CudaProcessDeviceTest, ACrashIsARuntimeErrorNamingTheSignal) {
  auto j = check("*(volatile int*)nullptr = 1;");
  ASSERT_TRUE(j);
  EXPECT_EQ(j->verdict, Verdict::runtime_error);
  EXPECT_NE(j->reason.find("signal"), std::string::npos) << j->reason;
}

TEST_F(CudaProcessDeviceTest, AMissingEntryIsRefusedAtStart) {
  auto so = dir_ / "empty.so", src = dir_ / "empty.cpp";
  std::ofstream(src) << "extern \"C\" void other() {}\n";
  ASSERT_TRUE(
      core::run_process({"g++", "-shared", "-fPIC", "-o", so.string(), src.string()}).success());
  auto device = start_cuda_process_device({.library = so, .host_memory = true});
  ASSERT_FALSE(device.ok());
  EXPECT_NE(device.error().message.find("kernel"), std::string::npos);
}

TEST_F(CudaProcessDeviceTest, PairedTimingReadsBothSidesThroughTheirProcesses) {
  auto cand = start_cuda_process_device({.library = build(kAdd), .host_memory = true});
  ASSERT_TRUE(cand.ok());
  auto partner_so = dir_ / "partner.so";
  std::filesystem::copy_file(build(kAdd), partner_so);
  auto partner = start_cuda_process_device({.library = partner_so, .host_memory = true});
  ASSERT_TRUE(partner.ok());
  auto cb = allocate_set(**cand, task_);
  auto pb = allocate_set(**partner, task_);
  std::vector<float> x(kN, 1.0f), y(kN, 2.0f);
  const auto req = five_pairs();
  std::uint64_t seed = 7;
  GpuTimingInfo info;
  auto t = gpu_paired_timing(
      **cand, *cb, partner->get(), &*pb, task_, floats({x, y}), req, [&] { return seed++; },
      steady_ms_clock(), &info);
  ASSERT_FALSE(t.failure) << t.failure->reason;
  // Batched through the wire: inputs made fresh in the process from its pristine copies (each
  // batch's last inputs were compared with kforge's own perturbation), snapshots read back.
  EXPECT_TRUE(info.batched) << info.why_not_batched;
  EXPECT_GE(info.calls_per_sample, 1);
  EXPECT_EQ(t.candidate_ms.size(), 5u);
  for (double ms : t.candidate_ms) EXPECT_GT(ms, 0);
}

// The same through the process: an input written during the timed calls is caught.
TEST_F(CudaProcessDeviceTest, AnInputWrittenInATimedBatchIsCaught) {
  auto cand = start_cuda_process_device(
      {.library = build(std::string(kAdd) + " static int calls = 0; if (++calls > 3) "
                                            "const_cast<float*>(y)[9] = 3.0f;"),
       .host_memory = true});
  ASSERT_TRUE(cand.ok());
  auto cb = allocate_set(**cand, task_);
  std::vector<float> x(kN, 1.0f), y(kN, 2.0f);
  const auto req = five_pairs();
  std::uint64_t seed = 7;
  auto t = gpu_paired_timing(
      **cand, *cb, nullptr, nullptr, task_, floats({x, y}), req, [&] { return seed++; },
      steady_ms_clock());
  ASSERT_TRUE(t.failure);
  EXPECT_EQ(t.failure->verdict, Verdict::input_modified) << t.failure->reason;
}

// kforge's perturbation kernel is PTX text the driver compiles on the GPU machine; ptxas (the
// same compiler, offline) proves here that it assembles for the GPUs kforge's users have.
TEST(CudaPerturbPtx, AssemblesForTuringHopperAndBlackwell) {
  std::filesystem::path ptxas;
  for (const char* p : {"/usr/local/cuda/bin/ptxas", "/usr/bin/ptxas"})
    if (std::filesystem::exists(p)) ptxas = p;
  if (ptxas.empty()) GTEST_SKIP() << "no ptxas (the CUDA toolkit) on this machine";
  const auto ptx = core::source_dir() / "src" / "kforge" / "runner" / "cuda_perturb.ptx";
  ASSERT_TRUE(std::filesystem::exists(ptx)) << ptx;
  for (const char* arch : {"sm_75", "sm_90", "sm_100"}) {
    auto r = core::run_process({ptxas.string(), "-arch", arch, ptx.string(), "-o", "/dev/null"});
    EXPECT_TRUE(r.success()) << arch << ": " << r.err;
  }
}

// The sanitizer pass: the runner under a wrapper (here a shell standing in for compute-sanitizer,
// which is not installed on these machines), whose report finish() collects once the runner ends.
TEST_F(CudaProcessDeviceTest, AWrappersReportIsCollectedWhenTheProcessEnds) {
  auto device = start_cuda_process_device(
      {.library = build(kAdd),
       .host_memory = true,
       .wrapper = {"/bin/sh", "-c", "\"$@\"; echo '========= ERROR SUMMARY: 2 errors'", "sh"}});
  ASSERT_TRUE(device.ok()) << device.error().message;
  auto buffers = allocate_set(**device, task_);
  ASSERT_TRUE(buffers.ok());
  auto report = (*device)->finish();
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(read_sanitizer_report(*report).errors, 2) << *report;
}

// The attacks: each would pass the check (it computes the right sum) if the walls were down. A
// process the filter kills is a sandbox_violation naming the call, as on the cpp target.
TEST_F(CudaProcessDeviceTest, AKernelThatForksDiesOfTheTrappedCall) {
  auto j = check(std::string(kAdd) + " if (fork() == 0) _exit(0);");
  ASSERT_TRUE(j);
  EXPECT_EQ(j->verdict, Verdict::sandbox_violation) << j->reason;
  EXPECT_NE(j->reason.find("check set 1: forbidden system call clone (56): kernels may compute"),
            std::string::npos)
      << j->reason;
}

// A constructor runs when the runner opens the library, under the walls: the process dies before
// it is ready, and the start's failure is named the same way.
TEST_F(CudaProcessDeviceTest, AConstructorThatForksIsASandboxViolationAtStart) {
  auto so = dir_ / "ctor.so", src = dir_ / "ctor.cpp";
  std::ofstream(src) << "#include <unistd.h>\n"
                        "__attribute__((constructor)) static void early() { if (fork() == 0) "
                        "_exit(0); }\n"
                        "extern \"C\" void kernel(const float*, const float*, float*, void*) {}\n";
  ASSERT_TRUE(
      core::run_process({"g++", "-shared", "-fPIC", "-o", so.string(), src.string()}).success());
  auto device = start_cuda_process_device({.library = so, .host_memory = true});
  ASSERT_FALSE(device.ok());
  auto j = judge_start_failure(device.error().message);
  EXPECT_EQ(j.verdict, Verdict::sandbox_violation) << device.error().message;
  EXPECT_NE(j.reason.find("forbidden system call clone"), std::string::npos) << j.reason;
  EXPECT_EQ(judge_start_failure("kforge-run-cuda: cannot load the kernel").verdict,
            Verdict::runtime_error);
}

TEST_F(CudaProcessDeviceTest, AKernelThatOpensANetworkSocketDiesOfTheTrappedCall) {
  auto j = check(std::string(kAdd) + " socket(AF_INET, SOCK_STREAM, 0);");
  ASSERT_TRUE(j);
  EXPECT_EQ(j->verdict, Verdict::sandbox_violation) << j->reason;
  EXPECT_NE(j->reason.find("forbidden system call socket"), std::string::npos) << j->reason;
}

// A thread of the kernel's that makes the call after the return: the death shows at the judge's
// next request, and is named the same.
TEST_F(CudaProcessDeviceTest, ATrappedCallAfterTheReturnIsNamedToo) {
  auto device = start_cuda_process_device(
      {.library = build(std::string(kAdd) + " std::thread([] { usleep(500); "
                                            "socket(AF_INET, SOCK_STREAM, 0); }).detach();"),
       .host_memory = true});
  ASSERT_TRUE(device.ok());
  auto buffers = allocate_set(**device, task_);
  ASSERT_TRUE(buffers.ok());
  std::vector<float> x(kN, 1.0f), y(kN, 2.0f), z(kN, 3.0f);
  auto j = gpu_check(**device, *buffers, task_, {floats({x, y})}, {floats({z})}, 10, e_);
  // On a loaded machine the thread may first run after the check: its death then shows at the
  // judge's next request (here a synchronization, as the timing's would be), named the same.
  for (int tries = 0; !j && tries < 100; ++tries) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    j = judge_call(**device, (*device)->synchronize(5), "after the check", 5);
  }
  ASSERT_TRUE(j);
  EXPECT_EQ(j->verdict, Verdict::sandbox_violation) << j->reason;
  EXPECT_NE(j->reason.find("forbidden system call socket"), std::string::npos) << j->reason;
}

TEST_F(CudaProcessDeviceTest, AKernelThatRunsAProgramDiesOfTheTrappedCall) {
  auto j = check(std::string(kAdd) +
                 " char sh[] = \"/bin/sh\"; char* argv[] = {sh, nullptr};"
                 " execve(sh, argv, nullptr);");
  ASSERT_TRUE(j);
  EXPECT_EQ(j->verdict, Verdict::sandbox_violation) << j->reason;
  EXPECT_NE(j->reason.find("forbidden system call execve"), std::string::npos) << j->reason;
}

TEST_F(CudaProcessDeviceTest, AKernelThatCreatesAFileDiesOfTheTrappedCall) {
  const auto target = dir_ / "dropped";
  auto j =
      check(std::string(kAdd) + " open(\"" + target.string() + "\", O_WRONLY | O_CREAT, 0600);");
  ASSERT_TRUE(j);
  EXPECT_EQ(j->verdict, Verdict::sandbox_violation) << j->reason;
  EXPECT_NE(j->reason.find("forbidden system call openat"), std::string::npos) << j->reason;
  EXPECT_FALSE(std::filesystem::exists(target));
}

TEST_F(CudaProcessDeviceTest, AKernelCannotReadFilesOutsideItsView) {
  if (core::landlock_abi() == 0) GTEST_SKIP() << "no Landlock on this kernel";
  // The kernel writes a wrong sum when it could read the file: Landlock must refuse the open.
  std::ofstream(dir_ / "secret.txt") << "reference outputs";
  auto j = check(std::string(kAdd) + " if (open(\"" + (dir_ / "secret.txt").string() +
                 "\", O_RDONLY) >= 0) z[0] = 42.0f;");
  EXPECT_FALSE(j) << j->reason;
}

TEST_F(CudaProcessDeviceTest, ATrustedKernelIsNotFiltered) {
  // An expert or a baseline (cuDNN, libtorch) gets Landlock but no seccomp filter.
  auto j =
      check(std::string(kAdd) + " int s = socket(AF_INET, SOCK_STREAM, 0); if (s >= 0) close(s);",
            10, true);
  EXPECT_FALSE(j) << j->reason;
}

}  // namespace
}  // namespace kforge::eval
