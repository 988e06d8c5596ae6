// The peers end to end at the ci size: a Python implementation run by kforge_worker.py is timed,
// snapshotted and compared by kforge exactly as a C++ kernel is. XLA (jax.jit), PyTorch eager and
// torch.compile each partner a kernel and give a paired speedup; a peer module that returns wrong
// numbers, writes its inputs, or sleeps in a call fails the evaluation as the peer's failure
// (partner_failed: an error row, never a speedup). The Python environment is required: its
// absence is a failure naming scripts/setup, never a skip.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "kforge/core/fs.h"
#include "kforge/core/paths.h"
#include "kforge/core/python_env.h"
#include "kforge/core/task_loader.h"
#include "kforge/eval/eval_test_util.h"
#include "kforge/eval/evaluate.h"
#include "kforge/eval/python_kernel.h"
#include "kforge/modes/auto_loop.h"
#include "kforge/modes/peer_report.h"
#include "kforge/toolchain/cpp_compiler.h"

namespace kforge::eval {
namespace {

class PeersTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    state_ = new std::filesystem::path(test_state_dir("peers"));
    // Inductor's compiled code is shared by every run of these tests (the per-user cache).
    setenv("KFORGE_CACHE_DIR", test_user_cache().c_str(), 1);
    compiler_ = new toolchain::CppCompiler(test_compiler_options());
  }
  static void TearDownTestSuite() {
    std::filesystem::remove_all(*state_);
    delete compiler_;
    delete state_;
  }
  void SetUp() override {
    ASSERT_TRUE(std::filesystem::exists(core::python_executable()))
        << "no Python environment at " << core::python_env_dir()
        << ": scripts/setup makes it (KFORGE_PYENV names another)";
  }

  // Evaluates `source` on task folder `dir` at the ci size, partnered with `peer`.
  Evaluation run(const std::filesystem::path& dir, const std::string& source, toolchain::Role role,
                 const std::string& peer, double call_timeout_s = 5) {
    auto spec = core::load_task(dir);
    EXPECT_TRUE(spec.ok()) << spec.error().message;
    if (!spec.ok()) return {};
    auto ctx = TaskContext::create(*spec, "ci", *compiler_, *state_);
    EXPECT_TRUE(ctx.ok());
    if (!ctx.ok()) return {};
    EvalOptions o;
    o.time_budget_s = 0.2;
    o.min_pairs = 5;
    o.threads = 1;
    o.role = role;
    o.peer = peer;
    o.call_timeout_s = call_timeout_s;
    return evaluate(*ctx, source, role == toolchain::Role::candidate ? "k.cpp" : "expert.cpp", o);
  }

  static std::filesystem::path suite(const std::string& id) {
    return core::source_dir() / "bench" / "jaxbench" / id;
  }

  // A copy of 12p_rmsnorm whose baseline.py is `port`: the torch peers run it.
  std::filesystem::path task_with_port(const std::string& name, const std::string& port) {
    auto dir = *state_ / "tasks" / name / "12p_rmsnorm";  // a task's folder is named by its id
    std::filesystem::create_directories(dir);
    for (const char* f : {"task.toml", "reference.cpp", "baseline.cpp", "expert.cpp"})
      std::filesystem::copy_file(suite("12p_rmsnorm") / f, dir / f,
                                 std::filesystem::copy_options::overwrite_existing);
    EXPECT_TRUE(core::write_atomic(dir / "baseline.py", port).ok());
    return dir;
  }

  std::string expert(const std::string& id) { return *core::read_text(suite(id) / "expert.cpp"); }

  static inline std::filesystem::path* state_ = nullptr;
  static inline toolchain::CppCompiler* compiler_ = nullptr;
};

}  // namespace

TEST_F(PeersTest, XlaPartnersTheExpertWithAPairedSpeedup) {
  auto e = run(suite("12p_rmsnorm"), expert("12p_rmsnorm"), toolchain::Role::expert, "xla");
  ASSERT_EQ(e.verdict, Verdict::correct) << e.reason << "\n" << e.kernel_output;
  EXPECT_EQ(e.partner, "xla");
  EXPECT_FALSE(e.partner_failed);
  ASSERT_TRUE(e.candidate && e.baseline && e.speedup);
  EXPECT_GT(e.baseline->median_ms, 0);
  EXPECT_GE(e.candidate->samples, 5);
  EXPECT_EQ(e.partner_version.rfind("jax ", 0), 0u) << e.partner_version;
  EXPECT_GT(e.partner_compile_s, 0);  // the jit's first call: reported, not timed
  EXPECT_GT(e.landlock_abi, 0);
  EXPECT_EQ(e.partner_seccomp, "on");
  auto j = to_json(e);
  EXPECT_EQ(j["partner"], "xla");
  EXPECT_TRUE(j["partner_peer"]["compile_s"].is_number());
}

TEST_F(PeersTest, TorchPeerUsesTheLibraryCallOfCrossEntropy) {
  auto spec = core::load_task(suite("13p_cross_entropy"));
  ASSERT_TRUE(spec.ok());
  auto k = peer_kernel(*spec, "torch");
  ASSERT_TRUE(k.ok()) << k.error().message;
  EXPECT_EQ(k->callable, "library");
  EXPECT_EQ(peer_kernel(*spec, "xla")->callable, "workload");
  auto e = run(suite("13p_cross_entropy"),
               *core::read_text(suite("13p_cross_entropy") / "reference.cpp"),
               toolchain::Role::reference, "torch");
  ASSERT_EQ(e.verdict, Verdict::correct) << e.reason;
  EXPECT_TRUE(e.speedup);
}

// auto's report.md: the best kernel against every peer, each in a paired run of its own; a peer
// that fails is a row saying so, never a speedup.
TEST_F(PeersTest, TheBestKernelIsReportedAgainstEveryPeer) {
  auto dir = task_with_port("report", R"(import torch
import kforge_task as task

def baseline(x, scale):
    return x * scale * 1.01
)");
  std::filesystem::copy_file(suite("12p_rmsnorm") / "workload.py", dir / "workload.py",
                             std::filesystem::copy_options::overwrite_existing);
  auto spec = core::load_task(dir);
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  auto ctx = TaskContext::create(*spec, "ci", *compiler_, *state_);
  ASSERT_TRUE(ctx.ok()) << ctx.error().message;
  EvalOptions o;
  o.time_budget_s = 0.2;
  o.min_pairs = 5;
  o.threads = 1;
  o.call_timeout_s = 5;
  o.role = toolchain::Role::expert;
  std::vector<std::string> said;
  auto rows =
      modes::compare_with_peers(*ctx, expert("12p_rmsnorm"), o, {"libtorch", "torch", "xla"},
                                [&](std::string_view m) { said.emplace_back(m); });
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(said.size(), 3u);
  EXPECT_EQ(rows[0].evaluation.partner, "baseline");
  EXPECT_EQ(rows[1].evaluation.partner, "torch");
  EXPECT_EQ(rows[2].evaluation.partner, "xla");
  EXPECT_TRUE(rows[0].evaluation.correct() && rows[0].evaluation.speedup)
      << rows[0].evaluation.reason;
  EXPECT_TRUE(rows[1].evaluation.partner_failed) << rows[1].evaluation.reason;
  EXPECT_TRUE(rows[2].evaluation.correct() && rows[2].evaluation.speedup)
      << rows[2].evaluation.reason;
  const auto section = modes::peers_section(rows, 1);
  EXPECT_NE(section.find("| PyTorch eager, libtorch |"), std::string::npos) << section;
  EXPECT_NE(section.find("peer error"), std::string::npos) << section;
  EXPECT_NE(section.find("| XLA"), std::string::npos) << section;
  // A ratio with its interval, or on a busy machine what it read and why it is no result.
  EXPECT_TRUE(section.find("95% CI") != std::string::npos ||
              section.find("no result (busy: read") != std::string::npos)
      << section;
  auto j = modes::to_json(rows);
  ASSERT_EQ(j.size(), 3u);
  EXPECT_TRUE(j[1]["speedup"].is_null());  // the failed peer gives no ratio
  EXPECT_TRUE(j[2]["peer_version"].get<std::string>().starts_with("jax "));
}

// --beat PEER: the time the agents are shown to beat is the peer's, measured beside baseline.cpp,
// not libtorch's own time under the peer's name; a peer that fails is an error naming it.
TEST_F(PeersTest, TheTimeToBeatIsThePeersWhenAPeerIsTheTarget) {
  // A correct torch port that takes at least 30 ms a call: libtorch's RMSNorm at the ci size takes
  // well under a millisecond, so which of the two was returned is plain.
  auto slow_dir = task_with_port("beat-slow", R"(import time
import torch
import kforge_task as task

def baseline(x, scale):
    time.sleep(0.03)
    return x * torch.rsqrt((x * x).mean(-1, keepdim=True) + task.eps) * scale
)");
  auto spec = core::load_task(slow_dir);
  ASSERT_TRUE(spec.ok());
  auto ctx = TaskContext::create(*spec, "ci", *compiler_, *state_);
  ASSERT_TRUE(ctx.ok()) << ctx.error().message;
  EvalOptions o;
  o.time_budget_s = 0.2;
  o.min_pairs = 5;
  o.threads = 1;
  o.call_timeout_s = 5;
  auto libtorch = modes::measure_baseline_ms(*ctx, o);
  o.peer = "torch";
  auto peer = modes::measure_baseline_ms(*ctx, o);
  ASSERT_TRUE(libtorch.ok()) << libtorch.error().message;
  ASSERT_TRUE(peer.ok()) << peer.error().message;
  EXPECT_GE(*peer, 30.0);
  EXPECT_LT(*libtorch, 30.0);

  auto dir = task_with_port("beat-wrong", R"(import torch
import kforge_task as task

def baseline(x, scale):
    return x * scale * 1.01
)");
  auto wrong_spec = core::load_task(dir);
  ASSERT_TRUE(wrong_spec.ok());
  auto wrong_ctx = TaskContext::create(*wrong_spec, "ci", *compiler_, *state_);
  ASSERT_TRUE(wrong_ctx.ok());
  o.peer = "torch";
  auto failed = modes::measure_baseline_ms(*wrong_ctx, o);
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.error().message.find("the torch peer could not be timed"), std::string::npos)
      << failed.error().message;
}

// A peer is checked on every secret set like a candidate: wrong numbers are its failure.
TEST_F(PeersTest, PeerReturningWrongNumbersIsAnErrorNotASpeedup) {
  auto dir = task_with_port("wrong", R"(import torch
import kforge_task as task

def baseline(x, scale):
    return x * scale * 1.01
)");
  auto e = run(dir, expert("12p_rmsnorm"), toolchain::Role::expert, "torch");
  EXPECT_EQ(e.verdict, Verdict::incorrect) << e.reason;
  EXPECT_TRUE(e.partner_failed);
  EXPECT_NE(e.reason.find("the torch peer"), std::string::npos) << e.reason;
  EXPECT_FALSE(e.speedup);
}

// Inputs are sealed and mapped read-only: an in-place write faults the peer's process.
TEST_F(PeersTest, PeerWritingItsInputsIsCaught) {
  auto dir = task_with_port("writes", R"(import torch
import kforge_task as task

def baseline(x, scale):
    x.mul_(0.0)
    return x * scale
)");
  auto e = run(dir, expert("12p_rmsnorm"), toolchain::Role::expert, "torch");
  EXPECT_NE(e.verdict, Verdict::correct) << e.reason;
  EXPECT_TRUE(e.partner_failed) << e.reason;
  EXPECT_NE(e.reason.find("the torch peer"), std::string::npos) << e.reason;
}

namespace {

// A torch port of 12p's RMSNorm that runs `act` (Python; `imports` imported) on every call past
// the worker's warm-up (at most 31 calls), then computes the right answer.
std::string port_acting_after_warm_up(const std::string& imports, const std::string& act) {
  std::string body, line;
  std::istringstream lines(act);
  while (std::getline(lines, line)) body += "        " + line + "\n";
  return "import " + imports + "\nimport torch\nimport kforge_task as task\n\ncalls = 0\n\n" +
         "def baseline(x, scale):\n    global calls\n    calls += 1\n    if calls > 32:\n" + body +
         "    mean2 = x.square().mean(-1, keepdim=True)\n" +
         "    return x * torch.rsqrt(mean2 + task.eps) * scale\n";
}

}  // namespace

// A peer that stops answering (here after its warm-up) is killed at the call's deadline. The test
// waits that deadline out: 1 s, where a call of this port takes well under a millisecond.
TEST_F(PeersTest, PeerThatSleepsInACallTimesOut) {
  auto dir = task_with_port("sleeps", port_acting_after_warm_up("time", "time.sleep(120)"));
  auto e = run(dir, expert("12p_rmsnorm"), toolchain::Role::expert, "torch", /*call_timeout_s=*/1);
  EXPECT_EQ(e.verdict, Verdict::timeout) << e.reason;
  EXPECT_TRUE(e.partner_failed);
}

// After its warm-up the worker's seccomp filter refuses sockets and new processes on every thread.
TEST_F(PeersTest, PeerCannotOpenASocketOrStartAProcess) {
  for (const char* act : {"socket.socketpair()", "subprocess.run(['true'])"}) {
    auto dir = task_with_port(act[0] == 's' && act[1] == 'o' ? "socket" : "process",
                              port_acting_after_warm_up("socket, subprocess", act));
    auto e = run(dir, expert("12p_rmsnorm"), toolchain::Role::expert, "torch");
    EXPECT_EQ(e.verdict, Verdict::runtime_error) << act << ": " << e.reason;
    EXPECT_TRUE(e.partner_failed) << act;
    EXPECT_NE(e.reason.find("PermissionError"), std::string::npos) << act << ": " << e.reason;
  }
}

// A peer is trusted code a user would run: past its warm-up it may still write files (Inductor
// writes its cache when a call meets a new shape), up to 1 GiB each, where a candidate may write
// none (PallasTest.CandidateCannotGrowAFileAfterItsWarmUp). Before, any write failed with EFBIG.
TEST_F(PeersTest, PeerMayWriteFilesAfterItsWarmUp) {
  auto dir = task_with_port(
      "files", port_acting_after_warm_up(
                   "os", R"(with open(os.path.join(os.environ["TMPDIR"], "cache.bin"), "wb") as f:
    f.write(bytes(8 << 20)))"));
  auto e = run(dir, expert("12p_rmsnorm"), toolchain::Role::expert, "torch");
  ASSERT_EQ(e.verdict, Verdict::correct) << e.reason;
  EXPECT_FALSE(e.partner_failed);
  EXPECT_TRUE(e.speedup);
}

// 11p's port computes a torch.mm per group, so torch.compile specialises on the group sizes: each
// secret set is a compile of its own. They all happen in the warm-up (untimed, the compiler and
// Inductor's cache files allowed), not in a check call, where Inductor's files met the worker's
// file-size wall ("File too large") and the compiler its seccomp filter. The one torch.compile
// evaluation of the suite (a process importing Inductor costs tens of seconds): it also holds
// that torch.compile partners a kernel with a paired speedup under its own name and version.
TEST_F(PeersTest, TorchCompilePartnersAKernelAndCompilesEverySetsShapesInItsWarmUp) {
  auto e = run(suite("11p_megablox_gmm"), expert("11p_megablox_gmm"), toolchain::Role::expert,
               "torch-compile");
  ASSERT_EQ(e.verdict, Verdict::correct) << e.reason;
  EXPECT_EQ(e.partner, "torch-compile");
  EXPECT_FALSE(e.partner_failed);
  EXPECT_TRUE(e.speedup);
  EXPECT_EQ(e.partner_version.rfind("torch ", 0), 0u) << e.partner_version;
  EXPECT_GT(e.partner_compile_s, 0);
}

// The XLA port of 11p runs megablox's tiled loop, not ragged_dot's dense M x G x K intermediate.
// Its compiled code is kept in the per-user cache, as Inductor's is.
TEST_F(PeersTest, XlaRunsTheGroupedMatmul) {
  auto e =
      run(suite("11p_megablox_gmm"), expert("11p_megablox_gmm"), toolchain::Role::expert, "xla");
  ASSERT_EQ(e.verdict, Verdict::correct) << e.reason;
  EXPECT_FALSE(e.partner_failed);
  EXPECT_TRUE(e.speedup);
  const auto jax_cache = test_user_cache() / "python" / "jax";
  EXPECT_TRUE(std::filesystem::is_directory(jax_cache) && !std::filesystem::is_empty(jax_cache))
      << "no XLA compile cache in " << jax_cache;
}

// A peer cannot take the kernel's CPU: between its calls its process is stopped (XLA's pool spins
// a few ms after a call, ~3.5 ms of CPU after a 12p call at the cpu size, and is stopped mid-spin),
// so work it leaves running (here a thread that wakes every 2 ms and spins for 1) only ever runs
// beside its own calls, and its sleeps, cut by every stop, resume (restart_syscall).
TEST_F(PeersTest, APeerLeavingWorkRunningIsStoppedWithIt) {
  auto dir = task_with_port("spoiler", R"(import threading, time
import torch
import kforge_task as task

calls = 0


def spoil():
    while True:
        time.sleep(0.002)
        until = time.perf_counter() + 0.001
        while time.perf_counter() < until:
            pass


def baseline(x, scale):
    global calls
    calls += 1
    if calls == 33:  # past the worker's warm-up (at most 31 calls)
        threading.Thread(target=spoil, daemon=True).start()
    mean2 = x.square().mean(-1, keepdim=True)
    return x * torch.rsqrt(mean2 + task.eps) * scale
)");
  auto e = run(dir, expert("12p_rmsnorm"), toolchain::Role::expert, "torch");
  EXPECT_EQ(e.verdict, Verdict::correct) << e.reason;
  EXPECT_FALSE(e.partner_failed) << e.reason;
  EXPECT_TRUE(e.speedup) << e.reason;
}

// A peer runs on as many CPUs as the kernel it partners: the worker pins its CPUs before PyTorch or
// JAX starts, and both size their thread pools from that (XLA has no flag for the count). Each
// port below computes the right answer only when it may run on exactly one CPU (threads = 1).
TEST_F(PeersTest, APeerRunsOnTheCpusOfItsThreadCount) {
  auto dir = task_with_port("pinned", R"(import os
import torch
import kforge_task as task


def baseline(x, scale):
    wrong = 0.0 if len(os.sched_getaffinity(0)) == 1 and torch.get_num_threads() == 1 else 1.0
    mean2 = x.square().mean(-1, keepdim=True)
    return x * torch.rsqrt(mean2 + task.eps) * scale + wrong
)");
  ASSERT_TRUE(core::write_atomic(dir / "workload.py", R"(import os
import jax
import jax.numpy as jnp
import kforge_task as task

WRONG = 0.0 if len(os.sched_getaffinity(0)) == 1 else 1.0


def workload(x, scale):
    ms = jnp.mean(jnp.square(x), axis=-1, keepdims=True)
    return x * jax.lax.rsqrt(ms + task.eps) * scale + WRONG
)")
                  .ok());
  for (const char* peer : {"torch", "xla"}) {
    auto e = run(dir, expert("12p_rmsnorm"), toolchain::Role::expert, peer);
    EXPECT_EQ(e.verdict, Verdict::correct) << peer << ": " << e.reason;
    EXPECT_FALSE(e.partner_failed) << peer << ": " << e.reason;
  }
}

TEST_F(PeersTest, MissingPortNamesTheFile) {
  auto dir = task_with_port("noport", "");
  std::filesystem::remove(dir / "baseline.py");
  auto e = run(dir, expert("12p_rmsnorm"), toolchain::Role::expert, "torch-compile");
  EXPECT_NE(e.verdict, Verdict::correct);
  EXPECT_TRUE(e.partner_failed);
  EXPECT_NE(e.reason.find("baseline.py"), std::string::npos) << e.reason;
}

}  // namespace kforge::eval
