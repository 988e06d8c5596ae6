// The adversarial corpus (tests/adversarial/*.cpp): hostile kernels against the 12p_rmsnorm task
// at the ci size. Each test names the defence that catches its kernel; remove the defence and the
// test fails. A correct kernel through the same fixture is the control.
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <optional>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "kforge/core/fs.h"
#include "kforge/core/paths.h"
#include "kforge/core/task_loader.h"
#include "kforge/eval/ci_task_fixture.h"
#include "kforge/eval/eval_test_util.h"
#include "kforge/eval/evaluate.h"
#include "kforge/toolchain/cpp_compiler.h"

namespace kforge::eval {
namespace {

using ::testing::AnyOf;
using ::testing::HasSubstr;
using ::testing::Not;

class Adversarial : public CiTaskTest {
 protected:
  static void SetUpTestSuite() { open_task("adversarial", "12p_rmsnorm"); }
  static void TearDownTestSuite() { close_task(); }

  // Check only, with short limits.
  static EvalOptions checked() {
    EvalOptions o;
    o.time = false;
    o.call_timeout_s = 2;
    return o;
  }
  // Checked, then timed against the reference (no libtorch needed).
  static EvalOptions timed() {
    EvalOptions o;
    o.partner = EvalOptions::Partner::reference;
    o.time_budget_s = 0.3;
    o.call_timeout_s = 5;
    return o;
  }

  Evaluation run(const std::string& name, const EvalOptions& options) {
    auto dir = core::source_dir() / "tests" / "adversarial";
    auto prelude = core::read_text(dir / "prelude.h");
    auto body = core::read_text(dir / name);
    EXPECT_TRUE(prelude.ok() && body.ok()) << name;
    return evaluate(*ctx_, *prelude + *body, name, options);
  }

  static std::string correct_kernel() {
    auto prelude = core::read_text(core::source_dir() / "tests" / "adversarial" / "prelude.h");
    return *prelude +
           "extern \"C\" void kernel(const float* x, const float* s, float* y) { "
           "rmsnorm_correct(x, s, y); }\n";
  }

  // The pids of `parent`'s children, from /proc/<parent>/task/*/children.
  static std::vector<int> children_of(int parent) {
    std::vector<int> pids;
    std::error_code ec;
    for (const auto& t :
         std::filesystem::directory_iterator(fmt::format("/proc/{}/task", parent), ec)) {
      auto text = core::read_text(t.path() / "children");
      if (!text) continue;
      std::istringstream in(*text);
      for (int pid; in >> pid;) pids.push_back(pid);
    }
    return pids;
  }

  // Sets an environment variable for a scope, and puts back what was there.
  struct ScopedEnv {
    std::string name;
    std::optional<std::string> old;
    ScopedEnv(std::string n, const char* value) : name(std::move(n)) {
      if (const char* v = std::getenv(name.c_str())) old = v;
      setenv(name.c_str(), value, 1);
    }
    ~ScopedEnv() {
      if (old)
        setenv(name.c_str(), old->c_str(), 1);
      else
        unsetenv(name.c_str());
    }
  };

  static std::string marker(const char* what) {
    return std::string("/tmp/kforge-adversarial-") + what + "-marker";
  }
};

TEST_F(Adversarial, ControlCorrectKernelPassesAndIsTimed) {
  auto dir = core::source_dir() / "tests" / "adversarial";
  auto prelude = core::read_text(dir / "prelude.h");
  auto e = evaluate(*ctx_,
                    *prelude +
                        "extern \"C\" void kernel(const float* x, const float* s, float* y) { "
                        "rmsnorm_correct(x, s, y); }\n",
                    "control.cpp", timed());
  EXPECT_EQ(e.verdict, Verdict::correct) << e.reason;
  ASSERT_TRUE(e.candidate && e.speedup);
  EXPECT_GE(e.candidate->samples, 10);
  EXPECT_EQ(e.check_ms.size(), 3u);
  EXPECT_GT(e.landlock_abi, 0)
      << "Landlock is not active: the filesystem defences are missing on this machine";
}

TEST_F(Adversarial, WrongValues) {
  auto e = run("wrong_values.cpp", checked());
  EXPECT_EQ(e.verdict, Verdict::incorrect);
  ASSERT_TRUE(e.mismatch);
  EXPECT_GT(e.mismatch->outputs.at(0).bad, 0);
  EXPECT_THAT(e.reason, HasSubstr("output 'y' is wrong"));
}

TEST_F(Adversarial, PartialOutput) {
  auto e = run("partial_output.cpp", checked());
  EXPECT_EQ(e.verdict, Verdict::incorrect);
  ASSERT_TRUE(e.mismatch);
  EXPECT_EQ(e.mismatch->outputs.at(0).never_written, 2 * 8 * 256 / 2);
  EXPECT_THAT(e.reason, HasSubstr("never written"));
  EXPECT_THAT(e.reason, HasSubstr("dim 0 only 1..1"));  // the second half of the batch
}

TEST_F(Adversarial, AllZeros) {
  auto e = run("all_zeros.cpp", checked());
  EXPECT_EQ(e.verdict, Verdict::incorrect);
  EXPECT_THAT(e.reason, HasSubstr("all zeros"));
}

TEST_F(Adversarial, NothingWritten) {
  auto e = run("nothing_written.cpp", checked());
  EXPECT_EQ(e.verdict, Verdict::incorrect);
  EXPECT_THAT(e.reason, HasSubstr("never written"));
}

TEST_F(Adversarial, NanOutput) {
  auto e = run("nan_output.cpp", checked());
  EXPECT_EQ(e.verdict, Verdict::incorrect);
}

TEST_F(Adversarial, WritesToAnInput) {
  auto e = run("writes_input.cpp", checked());
  EXPECT_EQ(e.verdict, Verdict::input_modified) << e.reason;
  EXPECT_THAT(e.reason, HasSubstr("read-only input 'x'"));
}

TEST_F(Adversarial, WritesPastTheEndOfAnOutput) {
  auto e = run("write_past_end.cpp", checked());
  EXPECT_EQ(e.verdict, Verdict::runtime_error);
  EXPECT_THAT(e.reason, HasSubstr("past the end of output 'y'"));
}

TEST_F(Adversarial, ReadsPastTheEndOfAnInput) {
  auto e = run("read_past_end.cpp", checked());
  EXPECT_EQ(e.verdict, Verdict::runtime_error);
  EXPECT_THAT(e.reason, HasSubstr("past the end of input 'x'"));
}

TEST_F(Adversarial, CallsSystem) {
  std::filesystem::remove(marker("system"));
  auto e = run("calls_system.cpp", checked());
  EXPECT_EQ(e.verdict, Verdict::sandbox_violation);
  // glibc's system() first ignores SIGINT (rt_sigaction), then spawns (clone): either is refused.
  EXPECT_THAT(e.reason, AnyOf(HasSubstr("rt_sigaction"), HasSubstr("clone"), HasSubstr("vfork"),
                              HasSubstr("execve")));
  EXPECT_FALSE(std::filesystem::exists(marker("system")));
}

TEST_F(Adversarial, CallsExec) {
  std::filesystem::remove(marker("exec"));
  auto e = run("calls_exec.cpp", checked());
  EXPECT_EQ(e.verdict, Verdict::sandbox_violation);
  EXPECT_THAT(e.reason, HasSubstr("execve"));
  EXPECT_FALSE(std::filesystem::exists(marker("exec")));
}

TEST_F(Adversarial, CallsFork) {
  std::filesystem::remove(marker("fork"));
  auto e = run("calls_fork.cpp", checked());
  EXPECT_EQ(e.verdict, Verdict::sandbox_violation);
  EXPECT_THAT(e.reason, AnyOf(HasSubstr("clone"), HasSubstr("fork")));
  sleep(1);
  EXPECT_FALSE(std::filesystem::exists(marker("fork")));
}

TEST_F(Adversarial, OpensASocket) {
  auto e = run("opens_socket.cpp", checked());
  EXPECT_EQ(e.verdict, Verdict::sandbox_violation);
  EXPECT_THAT(e.reason, HasSubstr("socket"));
}

TEST_F(Adversarial, OpensAFile) {
  std::filesystem::remove(marker("file"));
  auto e = run("opens_file.cpp", checked());
  EXPECT_EQ(e.verdict, Verdict::sandbox_violation);
  EXPECT_THAT(e.reason, HasSubstr("openat"));
  EXPECT_FALSE(std::filesystem::exists(marker("file")));
}

TEST_F(Adversarial, InfiniteLoop) {
  auto o = checked();
  o.call_timeout_s = 1;
  auto e = run("infinite_loop.cpp", o);
  EXPECT_EQ(e.verdict, Verdict::timeout);
  EXPECT_LT(e.phases.total_s, 30);
}

TEST_F(Adversarial, HugeAllocation) {
  auto e = run("huge_allocation.cpp", checked());
  EXPECT_EQ(e.verdict, Verdict::runtime_error);
  EXPECT_THAT(e.reason, HasSubstr("memory limit"));
}

TEST_F(Adversarial, ExitsInsteadOfReturning) {
  auto e = run("calls_exit.cpp", checked());
  EXPECT_EQ(e.verdict, Verdict::runtime_error);
  EXPECT_THAT(e.reason, HasSubstr("exit status 0"));
}

TEST_F(Adversarial, KilledBySigkillIsReportedAsSuch) {
  auto e = run("killed_by_sigkill.cpp", checked());
  EXPECT_EQ(e.verdict, Verdict::runtime_error) << e.reason;
  EXPECT_THAT(e.reason, HasSubstr("signal 9 (SIGKILL) during check set 1"));
  EXPECT_THAT(e.reason, Not(HasSubstr("out of memory?")));
}

TEST_F(Adversarial, Aborts) {
  auto e = run("calls_abort.cpp", checked());
  EXPECT_EQ(e.verdict, Verdict::runtime_error);
  EXPECT_THAT(e.reason, HasSubstr("aborted"));
}

TEST_F(Adversarial, DetachedThreadFinishesAfterReturn) {
  auto e = run("detached_thread.cpp", checked());
  EXPECT_THAT(e.verdict, AnyOf(Verdict::sandbox_violation, Verdict::incorrect)) << e.reason;
  EXPECT_NE(e.verdict, Verdict::correct);
}

TEST_F(Adversarial, PointerKeyedCache) {
  auto e = run("pointer_cache.cpp", timed());
  EXPECT_EQ(e.verdict, Verdict::incorrect) << e.reason;
  EXPECT_THAT(e.reason, HasSubstr("reuse results across calls"));
}

TEST_F(Adversarial, ContentKeyedCache) {
  auto e = run("content_cache.cpp", timed());
  EXPECT_EQ(e.verdict, Verdict::incorrect) << e.reason;
  EXPECT_THAT(e.reason, HasSubstr("timing pair"));
}

TEST_F(Adversarial, CallsBlas) {
  auto e = run("calls_blas.cpp", checked());
  EXPECT_EQ(e.verdict, Verdict::link_refused);
  EXPECT_THAT(e.reason, HasSubstr("cblas_sscal"));
}

TEST_F(Adversarial, DefinesClockGettime) {
  auto e = run("defines_clock_gettime.cpp", checked());
  EXPECT_EQ(e.verdict, Verdict::link_refused);
  EXPECT_THAT(e.reason, HasSubstr("clock_gettime"));
}

TEST_F(Adversarial, UnboundedRecursion) {
  auto e = run("unbounded_recursion.cpp", checked());
  EXPECT_EQ(e.verdict, Verdict::runtime_error);
  EXPECT_THAT(e.reason, HasSubstr("stack"));
}

TEST_F(Adversarial, KillsTheParent) {
  auto e = run("kills_parent.cpp", checked());
  EXPECT_EQ(e.verdict, Verdict::sandbox_violation);
  EXPECT_THAT(e.reason, HasSubstr("kill"));
}

TEST_F(Adversarial, MapsExecutableMemory) {
  auto e = run("executable_memory.cpp", checked());
  EXPECT_EQ(e.verdict, Verdict::sandbox_violation);
  EXPECT_THAT(e.reason, HasSubstr("mmap"));
}

TEST_F(Adversarial, ConstructorForks) {
  auto e = run("constructor_forks.cpp", checked());
  EXPECT_EQ(e.verdict, Verdict::sandbox_violation);
  EXPECT_THAT(e.reason, HasSubstr("during loading"));
}

TEST_F(Adversarial, StridesFarPastTheEndOfAnInput) {
  auto e = run("stride_past_end.cpp", checked());
  EXPECT_EQ(e.verdict, Verdict::runtime_error) << e.reason;
  EXPECT_THAT(e.reason, HasSubstr("past the end of input 'x'"));
}

// --- The judge holds nothing the kernel can reach (each hole an older runner had) ---

TEST_F(Adversarial, ForgedRunnerMessagesAreAViolationNotAResult) {
  auto e = run("forges_messages.cpp", timed());
  EXPECT_EQ(e.verdict, Verdict::sandbox_violation) << e.reason;
  EXPECT_THAT(e.reason, HasSubstr("descriptor 3"));
  EXPECT_FALSE(e.speedup && e.speedup->median > 100) << "a forged timing report was believed";
}

TEST_F(Adversarial, ToleranceIsNotInTheKernelsProcess) {
  auto e = run("overwrites_tolerance.cpp", timed());
  EXPECT_EQ(e.verdict, Verdict::incorrect) << e.reason;
  EXPECT_THAT(e.reason, HasSubstr("timing pair"));
}

TEST_F(Adversarial, PatchedClockChangesNoTime) {
  auto e = run("patches_clock.cpp", timed());
  ASSERT_EQ(e.verdict, Verdict::correct) << e.reason;
  ASSERT_TRUE(e.candidate);
  EXPECT_GE(e.candidate->median_ms, 4.5) << "each call sleeps 5 ms";
  EXPECT_THAT(e.kernel_output, HasSubstr("clock_gettime slots patched"));
}

TEST_F(Adversarial, PartnerAndBlasAreNotInTheKernelsProcess) {
  auto e = run("finds_partner.cpp", timed());
  EXPECT_EQ(e.verdict, Verdict::correct) << e.reason;
  EXPECT_THAT(e.kernel_output, HasSubstr("partner_found=0 blas_found=0"));
}

TEST_F(Adversarial, SpoilerThreadFromAConstructor) {
  auto e = run("spoiler_spins.cpp", timed());
  EXPECT_EQ(e.verdict, Verdict::sandbox_violation) << e.reason;
  // Seen as not settling after a return, or as CPU used while idle, depending on the scheduler.
  EXPECT_THAT(e.reason, AnyOf(HasSubstr("ms of CPU"), HasSubstr("kept using CPU"),
                              HasSubstr("kept running")));
}

TEST_F(Adversarial, SpoilerWithALowDutyCycle) {
  auto e = run("spoiler_duty_cycle.cpp", timed());
  EXPECT_EQ(e.verdict, Verdict::sandbox_violation) << e.reason;
  EXPECT_THAT(e.reason, AnyOf(HasSubstr("ms of CPU"), HasSubstr("kept using CPU"),
                              HasSubstr("kept running")));
}

TEST_F(Adversarial, ConstructorCannotInstallAFilter) {
  auto e = run("constructor_seccomp.cpp", checked());
  EXPECT_EQ(e.verdict, Verdict::sandbox_violation) << e.reason;
  EXPECT_THAT(e.reason, HasSubstr("seccomp"));
  EXPECT_THAT(e.reason, HasSubstr("loading"));
}

TEST_F(Adversarial, ConstructorCannotMapWritableCode) {
  auto e = run("constructor_rwx.cpp", checked());
  EXPECT_EQ(e.verdict, Verdict::sandbox_violation) << e.reason;
  EXPECT_THAT(e.reason, HasSubstr("mmap"));
}

TEST_F(Adversarial, IfuncResolverCannotMapWritableCode) {
  auto e = run("ifunc_rwx.cpp", checked());
  EXPECT_EQ(e.verdict, Verdict::sandbox_violation) << e.reason;
  EXPECT_THAT(e.reason, HasSubstr("mmap"));
}

TEST_F(Adversarial, MprotectCannotMakeDataExecutable) {
  auto e = run("mprotect_exec.cpp", checked());
  EXPECT_EQ(e.verdict, Verdict::sandbox_violation) << e.reason;
  EXPECT_THAT(e.reason, HasSubstr("mprotect"));
}

TEST_F(Adversarial, NoDescriptorOfKforgeIsInherited) {
  // A descriptor kforge's process holds without close-on-exec, as a library might leave one.
  auto secret = *state_ / "inherited.txt";
  ASSERT_TRUE(core::write_atomic(secret, "KFORGE-INHERITED-MARKER").ok());
  int fd = ::open(secret.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  auto e = run("reads_inherited_fds.cpp", checked());
  ::close(fd);
  EXPECT_EQ(e.verdict, Verdict::correct) << e.reason;
  EXPECT_THAT(e.kernel_output, HasSubstr("inherited_fds=0"));
  EXPECT_THAT(e.kernel_output, Not(HasSubstr("KFORGE-INHERITED-MARKER")));
}

TEST_F(Adversarial, StateLeftBehindReachesNoOtherCall) {
  auto dir = core::source_dir() / "tests" / "adversarial";
  auto prelude = core::read_text(dir / "prelude.h");
  auto partner = core::read_text(dir / "checks_state.cpp");
  ASSERT_TRUE(prelude.ok() && partner.ok());
  auto o = timed();
  o.against_source = *prelude + *partner;
  o.against_name = "checks_state.cpp";
  o.against_role = toolchain::Role::expert;  // trusted: loaded like a baseline, in its own process
  auto e = run("leaves_state.cpp", o);
  EXPECT_EQ(e.verdict, Verdict::correct) << e.reason;
  ASSERT_TRUE(e.speedup);
}

TEST_F(Adversarial, ConstructorCannotReadSecretsOrCache) {
  // Make sure the secrets and the reference cache exist before the kernel looks for them.
  (void)run("nothing_written.cpp", checked());
  ASSERT_TRUE(std::filesystem::exists(*state_ / "secrets" / "12p_rmsnorm.seeds"));
  auto e = run("constructor_reads_secrets.cpp", checked());
  EXPECT_EQ(e.verdict, Verdict::correct) << e.reason;
  EXPECT_THAT(e.kernel_output, HasSubstr("secrets_opened=0 cache_opened=0"));
}

TEST_F(Adversarial, OutputThatIsNotUtf8IsRepairedNotFatal) {
  // Bytes that are not UTF-8, then a euro sign cut after its second byte: every JSON writer threw.
  auto dir = core::source_dir() / "tests" / "adversarial";
  auto prelude = core::read_text(dir / "prelude.h");
  ASSERT_TRUE(prelude.ok());
  auto e = evaluate(*ctx_,
                    *prelude +
                        "#include <cstdio>\nextern \"C\" void kernel(const float* x, const float* "
                        "s, float* y) {\n"
                        "  std::fputs(\"bytes \\xff\\xfe cut \\xe2\\x82\", stdout);\n  "
                        "std::fflush(stdout);\n  rmsnorm_correct(x, s, y);\n}\n",
                    "prints_bytes.cpp", checked());
  EXPECT_EQ(e.verdict, Verdict::correct) << e.reason;
  EXPECT_THAT(e.kernel_output, HasSubstr("bytes \xEF\xBF\xBD\xEF\xBF\xBD cut \xEF\xBF\xBD"));
  std::string json;
  EXPECT_NO_THROW(json = to_json(e).dump());
  EXPECT_THAT(json, HasSubstr("bytes \xEF\xBF\xBD\xEF\xBF\xBD cut"));
}

// --- Second round: nothing outside the timed call counts, nothing reaches another process ---

TEST_F(Adversarial, RunnerImageCannotBeUnprotected) {
  auto e = run("hijacks_runner_got.cpp", checked());
  EXPECT_EQ(e.verdict, Verdict::sandbox_violation) << e.reason;
  EXPECT_THAT(e.reason, HasSubstr("mprotect"));
  EXPECT_THAT(e.reason, HasSubstr("runner's own image"));
  EXPECT_THAT(e.kernel_output, Not(HasSubstr("runner_got_writable=1")));
}

TEST_F(Adversarial, NoCommandLeavesWorkOutsideTheTime) {
  auto o = timed();
  o.min_pairs = 40;
  auto e = run("works_before_its_call.cpp", o);
  EXPECT_EQ(e.verdict, Verdict::correct) << e.reason;
  EXPECT_THAT(e.kernel_output, Not(HasSubstr("used work done outside its call")));
}

TEST_F(Adversarial, ForgedFaultMarkIsAViolation) {
  auto e = run("forges_fault_mark.cpp", checked());
  EXPECT_EQ(e.verdict, Verdict::sandbox_violation) << e.reason;
  EXPECT_THAT(e.reason, HasSubstr("control page"));
  EXPECT_THAT(e.reason, Not(HasSubstr("out-of-memory")));
}

TEST_F(Adversarial, SharedPagesCannotBeRemoved) {
  auto e = run("removes_shared_pages.cpp", checked());
  EXPECT_EQ(e.verdict, Verdict::sandbox_violation) << e.reason;
  EXPECT_THAT(e.reason, HasSubstr("madvise"));
}

// Each process maps only its own output sets: read from outside, while both are alive.
TEST_F(Adversarial, OutputPagesAreNeverShared) {
  auto o = timed();
  std::vector<std::set<std::string>> seen;  // per child process: its kforge-outputs inodes
  o.progress = [&](std::string_view m) {
    if (m.rfind("timing", 0) != 0) return;
    for (int child : children_of(::getpid())) {
      auto maps = core::read_text(fmt::format("/proc/{}/maps", child));
      if (!maps) continue;
      std::set<std::string> inodes;
      std::istringstream in(*maps);
      for (std::string line; std::getline(in, line);)
        if (line.find("kforge-outputs") != std::string::npos) {
          std::istringstream fields(line);
          std::string range, perms, offset, dev, inode;
          fields >> range >> perms >> offset >> dev >> inode;
          inodes.insert(inode);
        }
      if (!inodes.empty()) seen.push_back(inodes);
    }
  };
  auto e = evaluate(*ctx_, correct_kernel(), "control.cpp", o);
  EXPECT_EQ(e.verdict, Verdict::correct) << e.reason;
  ASSERT_EQ(seen.size(), 2u) << "the kernel's process and its partner's";
  EXPECT_EQ(seen[0].size(), 2u);
  EXPECT_EQ(seen[1].size(), 2u);
  for (const auto& inode : seen[0]) EXPECT_FALSE(seen[1].count(inode)) << inode;
}

// One call that names a process, per case: each rule of the filter removed alone fails one case.
class TouchesAnotherProcess : public Adversarial,
                              public ::testing::WithParamInterface<const char*> {};

TEST_P(TouchesAnotherProcess, IsRefusedAndNamed) {
  static const std::vector<std::string> calls = {"sched_setaffinity",
                                                 "sched_getaffinity",
                                                 "sched_getparam",
                                                 "sched_getscheduler",
                                                 "prlimit64",
                                                 "tgkill",
                                                 "kill",
                                                 "setpriority",
                                                 "sched_setscheduler",
                                                 "pidfd_open",
                                                 "ptrace",
                                                 "process_vm_readv",
                                                 "prlimit64"};
  const std::string call = GetParam();
  const auto index = std::string(call) == "prlimit64 (set its own)"
                         ? 12
                         : std::find(calls.begin(), calls.end(), call) - calls.begin();
  auto dir = core::source_dir() / "tests" / "adversarial";
  auto prelude = core::read_text(dir / "prelude.h");
  auto body = core::read_text(dir / "touches_other_process.cpp");
  ASSERT_TRUE(prelude.ok() && body.ok());
  auto e = evaluate(*ctx_, fmt::format("#define TOUCH {}\n", index) + *prelude + *body,
                    "touches_other_process.cpp", checked());
  EXPECT_EQ(e.verdict, Verdict::sandbox_violation) << call << ": " << e.reason;
  EXPECT_THAT(e.reason, HasSubstr(call.substr(0, call.find(' ')))) << call;
  EXPECT_THAT(e.kernel_output, Not(HasSubstr("touched="))) << call;
}

INSTANTIATE_TEST_SUITE_P(EachCall, TouchesAnotherProcess,
                         ::testing::Values("sched_setaffinity", "sched_getaffinity",
                                           "sched_getparam", "sched_getscheduler", "prlimit64",
                                           "tgkill", "kill", "setpriority", "sched_setscheduler",
                                           "pidfd_open", "ptrace", "process_vm_readv",
                                           "prlimit64 (set its own)"),
                         [](const auto& info) {
                           std::string name = info.param;
                           std::erase_if(name, [](char c) { return !std::isalnum(c); });
                           return name;
                         });

// Without Landlock nothing untrusted is compiled or run, unless the user asks; then every verdict
// says the file wall was missing.
TEST_F(Adversarial, NoLandlockRefusesUntrustedCodeUnlessAsked) {
  ScopedEnv no_landlock("KFORGE_LANDLOCK_ABI", "0");
  {
    auto e = evaluate(*ctx_, correct_kernel(), "control.cpp", checked());
    EXPECT_EQ(e.verdict, Verdict::runtime_error);
    EXPECT_THAT(e.reason, HasSubstr("no Landlock"));
    EXPECT_THAT(e.reason, HasSubstr("KFORGE_ALLOW_NO_LANDLOCK=1"));
    EXPECT_FALSE(e.compile.ok) << "nothing was compiled";
  }
  ScopedEnv allowed("KFORGE_ALLOW_NO_LANDLOCK", "1");
  auto e = evaluate(*ctx_, correct_kernel(), "control.cpp", checked());
  EXPECT_EQ(e.verdict, Verdict::correct) << e.reason;
  EXPECT_THAT(e.walls, HasSubstr("NO Landlock"));
  EXPECT_THAT(to_json(e)["sandbox"]["walls"].get<std::string>(), HasSubstr("NO Landlock"));
}

}  // namespace
}  // namespace kforge::eval
