// The pallas target end to end at the ci size, with the venv's real JAX: a small Pallas RMSNorm
// written here (no expert file needed) is checked by the Python checker, run by the worker in
// TPU interpret mode on the CPU, found correct on the three secret sets against the cached f32
// reference (in f32 and in bf16), and timed paired against XLA with the time labelled as an
// interpreter's. Then the adversarial corpus: each kernel is caught by the defence the test names,
// and most of them get past the static check on purpose (getattr with computed names), so that
// the wall behind it is what the test holds: remove that wall and the kernel, which otherwise
// computes the right answer, is judged correct and the test fails. The Python environment is
// required: its absence is a failure naming scripts/setup, never a skip.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <future>
#include <latch>
#include <thread>

#include <unistd.h>

#include "kforge/core/fs.h"
#include "kforge/core/paths.h"
#include "kforge/core/python_env.h"
#include "kforge/core/task_loader.h"
#include "kforge/eval/eval_test_util.h"
#include "kforge/eval/evaluate.h"
#include "kforge/eval/machine_lock.h"
#include "kforge/targets/pallas_target.h"
#include "kforge/toolchain/cpp_compiler.h"
#include "pallas_kernels.h"

namespace kforge::eval {
namespace {

class PallasTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    state_ = new std::filesystem::path(test_state_dir("pallas"));
    compiler_ =
        new toolchain::CppCompiler({.cache_dir = test_compile_cache(),
                                    .include_dir = core::source_dir() / "bench" / "include"});
    target::ToolchainSettings s;
    s.cache_dir = test_compile_cache();
    pallas_ = target_.make_compiler(s).release();
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

  // Evaluates kernel.py `source` on 12p_rmsnorm at the ci size; timed (against XLA) when `time`.
  Evaluation run(const std::string& source, bool time = false, const std::string& dtype = "f32",
                 double ready_timeout_s = 0, MachineLock* machine_lock = nullptr,
                 toolchain::Role role = toolchain::Role::candidate) {
    auto ctx = TaskContext::create(*spec_, "ci", *compiler_, *state_);
    EXPECT_TRUE(ctx.ok());
    if (!ctx.ok()) return {};
    EvalOptions o;
    o.time = time;
    o.time_budget_s = 0.3;
    o.min_pairs = 5;
    o.threads = 1;
    o.call_timeout_s = 20;
    o.dtype = dtype;
    o.ready_timeout_s = ready_timeout_s;
    o.machine_lock = machine_lock;
    o.role = role;
    return target_.evaluate(*ctx, *pallas_, source, "kernel.py", o);
  }

  static bool has(const Evaluation& e, const std::string& text) {
    return e.reason.find(text) != std::string::npos;
  }

  static inline target::PallasTarget target_;
  static inline std::filesystem::path* state_ = nullptr;
  static inline toolchain::CppCompiler* compiler_ = nullptr;
  static inline toolchain::Compiler* pallas_ = nullptr;
  static inline core::TaskSpec* spec_ = nullptr;
};

}  // namespace

// The expert-free path: a correct Pallas kernel, checked in TPU interpret mode, timed against
// XLA, its time labelled as an interpreter's and its speedup not claimed.
TEST_F(PallasTest, CorrectKernelIsCheckedInInterpretModeAndTimedAgainstXla) {
  auto e = run(kernel_with("", "    pass"), /*time=*/true);
  ASSERT_EQ(e.verdict, Verdict::correct) << e.reason << "\n" << e.kernel_output;
  EXPECT_EQ(e.partner, "xla");
  EXPECT_FALSE(e.partner_failed);
  EXPECT_EQ(e.timing_basis, "interpret (cpu)");
  EXPECT_FALSE(e.timing_is_performance());
  EXPECT_EQ(e.pallas_mode, "tpu-interpret");
  EXPECT_TRUE(has(e, "not a performance figure")) << e.reason;
  ASSERT_TRUE(e.candidate && e.baseline);
  EXPECT_GE(e.candidate->samples, 5);
  EXPECT_GT(e.landlock_abi, 0);
  auto j = to_json(e);
  EXPECT_EQ(j["timing_basis"], "interpret (cpu)");
  EXPECT_EQ(j["timing_is_performance"], false);
  EXPECT_EQ(j["pallas_mode"], "tpu-interpret");
}

// An interpreter's timing decides nothing, so it does not take the machine alone: it runs while
// another evaluation of this process holds the machine shared (compiling, checking) and records no
// measurement window. Before, it waited for every shared hold to end, as a timing that is a
// performance figure must (EvaluateTest), and Pallas evaluations queued behind each other.
TEST_F(PallasTest, AnInterpretersTimingSharesTheMachine) {
  MachineLock lock;
  std::latch held(1);
  std::promise<void> evaluated;
  std::jthread other([&] {  // another evaluation compiling: holds the machine shared, at most 60 s
    auto hold = lock.share();
    held.count_down();
    evaluated.get_future().wait_for(std::chrono::seconds(60));
  });
  held.wait();
  auto e = run(kernel_with("", "    pass"), /*time=*/true, "f32", 0, &lock);
  evaluated.set_value();
  ASSERT_EQ(e.verdict, Verdict::correct) << e.reason << "\n" << e.kernel_output;
  EXPECT_FALSE(e.timing_is_performance());
  ASSERT_TRUE(e.candidate && e.baseline);
  EXPECT_TRUE(lock.windows().empty()) << "the interpreted timing took the machine alone";
  EXPECT_EQ(e.lock_wait_s, 0);
}

// bf16: the kernel and XLA get bfloat16 inputs; both are compared with the cached f32 reference
// at the bf16 tolerance.
TEST_F(PallasTest, Bf16KernelIsCheckedAgainstTheF32ReferenceAtTheBf16Tolerance) {
  auto e = run(kernel_with("", "    assert x.dtype == jnp.bfloat16 and T.DTYPE == 'bf16'"),
               /*time=*/true, "bf16");
  ASSERT_EQ(e.verdict, Verdict::correct) << e.reason << "\n" << e.kernel_output;
  EXPECT_EQ(e.dtype, "bf16");
  EXPECT_FALSE(e.partner_failed);
}

// The checker: a syntax error is a diagnostic with its line and the source line; a forbidden
// import is refused before anything runs.
TEST_F(PallasTest, CheckerReportsSyntaxErrorsAndForbiddenImports) {
  auto e = run("import jax\n\ndef kernel(x, scale):\n    return (x +\n");
  ASSERT_EQ(e.verdict, Verdict::compile_error) << e.reason;
  ASSERT_FALSE(e.compile.diagnostics.empty()) << e.compile.log;
  EXPECT_EQ(e.compile.diagnostics.front().file, "kernel.py");
  EXPECT_GE(e.compile.diagnostics.front().line, 4);
  auto os = run(kernel_with("import os\n", "    pass"));
  ASSERT_EQ(os.verdict, Verdict::compile_error) << os.reason;
  EXPECT_NE(os.compile.log.find("import of 'os' is not allowed"), std::string::npos)
      << os.compile.log;
  auto none = run("import jax\n\ndef not_kernel(x, scale):\n    return x\n");
  EXPECT_EQ(none.verdict, Verdict::compile_error);
  EXPECT_NE(none.compile.log.find("no top-level function 'kernel'"), std::string::npos);
}

// The rule against naming the task's own files is a candidate's: the task's 19k expert, whose
// docstring names 8p_gemm's expert ("... 8p_gemm's expert ... M/bm ..."), passes the checker as
// the expert it is, while the same text submitted as a candidate is still refused.
TEST_F(PallasTest, TheTrustedFilesRuleHoldsCandidatesNotTheTasksExpert) {
  auto spec = core::load_task(core::source_dir() / "bench" / "jaxbench" /
                              "19k_matmul_subtract_multiply_relu");
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  auto task = core::resolve_task(*spec, "ci");
  ASSERT_TRUE(task.ok()) << task.error().message;
  auto source = core::read_text(target_.expert_path(*spec));
  ASSERT_TRUE(source.ok()) << source.error().message;
  const auto header = target_.task_header(*task);
  auto expert = pallas_->compile({toolchain::Role::expert, *source, "kernel.py", header, {}});
  EXPECT_TRUE(expert.ok) << expert.log;
  auto candidate = pallas_->compile({toolchain::Role::candidate, *source, "kernel.py", header, {}});
  EXPECT_FALSE(candidate.ok);
  EXPECT_NE(candidate.log.find("names kforge's or the task's own files"), std::string::npos)
      << candidate.log;
}

// The task's GPU kernel (expert_pallas_gpu.py: Triton's compiler parameters, masked loads and
// stores) is judged on a CPU in the plain HLO interpreter from its first call, and says so: the TPU
// interpreter refuses a call whose parameters are not Mosaic TPU's (its bare "AssertionError" was
// the whole verdict of every GPU kernel before).
TEST_F(PallasTest, AGpuKernelIsCheckedInThePlainInterpreter) {
  const auto file = target::pallas_expert_for(spec_->dir, "cuda");
  ASSERT_EQ(file.filename(), "expert_pallas_gpu.py");
  auto source = core::read_text(file);
  ASSERT_TRUE(source.ok()) << source.error().message;
  ASSERT_NE(source->find("pltriton.CompilerParams("), std::string::npos);
  auto e = run(*source, false, "f32", 0, nullptr, toolchain::Role::expert);
  ASSERT_EQ(e.verdict, Verdict::correct) << e.reason << "\n" << e.kernel_output;
  EXPECT_EQ(e.pallas_mode, "interpret (written for the GPU's triton lowering)");
}

// Which expert the pallas target runs: on a GPU backend the task's GPU kernel where it has one
// (the TPU kernel's VMEM scratch cannot lower for Triton), else, and on every other backend, the
// TPU kernel. The suite's GEMM, attention, RMSNorm and fused-GEMM tasks each have a GPU kernel.
TEST(PallasExpertFile, AGpuRunsTheGpuKernelWhereTheTaskHasOne) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("kforge-pallas-expert-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  ASSERT_TRUE(core::write_atomic(dir / "expert_pallas.py", "def kernel(x):\n    return x\n").ok());
  for (const char* platform : {"cpu", "tpu", "cuda", "rocm"})
    EXPECT_EQ(target::pallas_expert_for(dir, platform).filename(), "expert_pallas.py") << platform;
  ASSERT_TRUE(
      core::write_atomic(dir / "expert_pallas_gpu.py", "def kernel(x):\n    return x\n").ok());
  for (const char* platform : {"cuda", "rocm"})
    EXPECT_EQ(target::pallas_expert_for(dir, platform).filename(), "expert_pallas_gpu.py")
        << platform;
  for (const char* platform : {"cpu", "tpu"})
    EXPECT_EQ(target::pallas_expert_for(dir, platform).filename(), "expert_pallas.py") << platform;
  std::filesystem::remove_all(dir);
  const auto suite = core::source_dir() / "bench" / "jaxbench";
  for (const char* id :
       {"8p_gemm", "1p_flash_attention", "12p_rmsnorm", "19k_matmul_subtract_multiply_relu"}) {
    EXPECT_EQ(target::pallas_expert_for(suite / id, "cuda").filename(), "expert_pallas_gpu.py")
        << id;
    EXPECT_EQ(target::pallas_expert_for(suite / id, "cpu").filename(), "expert_pallas.py") << id;
  }
}

// The whole computation in plain jnp (XLA's kernels, not a Pallas one) is refused by the trace.
TEST_F(PallasTest, JnpOnlyKernelIsRefused) {
  auto e = run(R"(import jax
import jax.numpy as jnp
import kforge_task as T

def kernel(x, scale):
    ms = jnp.mean(x * x, axis=-1, keepdims=True)
    return x * jax.lax.rsqrt(ms + T.eps) * scale
)");
  EXPECT_EQ(e.verdict, Verdict::sandbox_violation) << e.reason;
  EXPECT_TRUE(has(e, "no pallas_call")) << e.reason;
}

// A token pallas_call beside the real work in plain jnp (the class "no pallas_call" misses): the
// trace counts the arithmetic on each side and refuses a kernel whose most is outside Pallas.
TEST_F(PallasTest, TokenPallasCallBesideAJnpComputationIsRefused) {
  auto e = run(R"(import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
import kforge_task as T

def _copy(s_ref, o_ref):
    o_ref[...] = s_ref[...]

def kernel(x, scale):
    s = pl.pallas_call(_copy, out_shape=jax.ShapeDtypeStruct(scale.shape, scale.dtype))(scale)
    ms = jnp.mean(x * x, axis=-1, keepdims=True)
    return x * jax.lax.rsqrt(ms + T.eps) * s
)");
  EXPECT_EQ(e.verdict, Verdict::sandbox_violation) << e.reason;
  EXPECT_TRUE(has(e, "outside its pallas_call")) << e.reason;
}

// A host callback named so the checker cannot see it: the traced program shows it.
TEST_F(PallasTest, HostCallbackPastTheCheckerIsRefusedByTheTrace) {
  auto e = run(kernel_with("", R"(    cb = getattr(jax, "pure_" + "callback")
    x = cb(lambda a: a, jax.ShapeDtypeStruct(x.shape, x.dtype), x))"));
  EXPECT_EQ(e.verdict, Verdict::sandbox_violation) << e.reason;
  EXPECT_TRUE(has(e, "calls back to the host")) << e.reason;
  // The checker's own fence, for the plain spelling.
  auto plain = run(kernel_with("", "    x = jax.pure_callback(lambda a: a, x, x)"));
  EXPECT_EQ(plain.verdict, Verdict::compile_error) << plain.reason;
}

// Landlock: the task's folder (workload.py, the reference) is not in the worker's view.
TEST_F(PallasTest, ReadingWorkloadPyIsRefusedByLandlock) {
  auto path = (spec_->dir / "workload.py").string();
  std::reverse(path.begin(), path.end());  // past the checker's literal-path fence
  auto e = run(kernel_with("import numpy as np\n", "    getattr(np, 'from' + 'file')('" + path +
                                                       "'[::-1], dtype=np.uint8)"));
  EXPECT_NE(e.verdict, Verdict::correct) << e.reason;
  EXPECT_TRUE(has(e, "Permission denied")) << e.reason;
}

// Seccomp (loading stage, before the kernel's module runs): no new processes, no sockets.
TEST_F(PallasTest, ForkAndSocketAreRefusedBySeccomp) {
  const std::string sys = "import typing\n_sys = getattr(typing, 's' + 'ys')\n";
  auto fork = run(kernel_with(sys + R"(_os = getattr(_sys, 'mod' + 'ules')['o' + 's']
_pid = _os.fork()
if _pid == 0:
    _os._exit(0)
)",
                              "    pass"));
  EXPECT_EQ(fork.verdict, Verdict::runtime_error) << fork.reason;
  EXPECT_TRUE(has(fork, "Operation not permitted")) << fork.reason;
  auto sock = run(kernel_with(sys + R"(_s = getattr(_sys, 'mod' + 'ules')['soc' + 'ket']
getattr(_s, 'sock' + 'et')(_s.AF_INET, _s.SOCK_STREAM).close()
)",
                              "    pass"));
  EXPECT_EQ(sock.verdict, Verdict::runtime_error) << sock.reason;
  EXPECT_TRUE(has(sock, "Operation not permitted")) << sock.reason;
}

// The same filter keeps the worker to its own process: a call that names another pid (here kforge,
// its parent: reading its CPUs, signalling it with signal 0, reading its limits) is refused, as
// is MADV_REMOVE on pages it maps.
TEST_F(PallasTest, AnotherProcessIsOutOfReach) {
  const std::string os =
      "import typing\n_os = getattr(getattr(typing, 's' + 'ys'), "
      "'mod' + 'ules')['o' + 's']\n";
  for (const std::string call : {"getattr(_os, 'sched_get' + 'affinity')(_os.getppid())\n",
                                 "getattr(_os, 'ki' + 'll')(_os.getppid(), 0)\n",
                                 "getattr(_os, 'sched_set' + 'affinity')(_os.getppid(), {0})\n"}) {
    auto e = run(kernel_with(os + call, "    pass"));
    EXPECT_EQ(e.verdict, Verdict::runtime_error) << call << e.reason;
    EXPECT_TRUE(has(e, "Operation not permitted")) << call << e.reason;
  }
  auto own = run(kernel_with(os + "getattr(_os, 'sched_get' + 'affinity')(0)\n", "    pass"));
  EXPECT_NE(own.verdict, Verdict::runtime_error)
      << "its own process stays in reach: " << own.reason;
}

// RLIMIT_FSIZE 0 once the walls close, whatever a peer may write (PeersTest.PeerMayWrite...): a
// thread the kernel starts at import waits for the walls (the address space capped), then
// writes 8 MiB into its scratch folder. Refused, it returns and the kernel stays correct; were
// the write let through, the thread would end the process and the kernel would fail.
TEST_F(PallasTest, CandidateCannotGrowAFileAfterItsWarmUp) {
  auto e = run(kernel_with(R"(import typing
_m = getattr(getattr(typing, 's' + 'ys'), 'mod' + 'ules')
_os, _res, _th, _time = _m['o' + 's'], _m['reso' + 'urce'], _m['thre' + 'ading'], _m['ti' + 'me']
_open = getattr(_m['built' + 'ins'], 'op' + 'en')


def _grow():
    while _res.getrlimit(_res.RLIMIT_AS)[0] == _res.RLIM_INFINITY:
        _time.sleep(0.005)
    try:
        with _open(_os.environ['TMP' + 'DIR'] + '/big.bin', 'wb') as f:
            f.write(bytes(8 << 20))
    except OSError:
        return
    getattr(_os, '_ex' + 'it')(3)


_th.Thread(target=_grow, daemon=True).start()
)",
                           "    pass"),
               /*time=*/true);
  EXPECT_EQ(e.verdict, Verdict::correct) << verdict_name(e.verdict) << ": " << e.reason;
}

// A kernel that writes kforge's input buffers (found through the garbage collector at trace
// time, in the worker's lists of them) faults: they are mapped read-only, and hashed before and
// after.
TEST_F(PallasTest, WritingTheInputsIsCaught) {
  auto e = run(
      kernel_with("import typing\nimport numpy as np\n", R"(    _sys = getattr(typing, 's' + 'ys')
    _mods = getattr(_sys, 'mod' + 'ules')
    _gc, _ct = _mods['g' + 'c'], _mods['ctyp' + 'es']
    for held in _gc.get_objects():  # arrays are not tracked; the lists holding them are
        if type(held) is not list:
            continue
        for a in held:
            if type(a) is np.ndarray and a.dtype == np.float32 and a.size == T.B * T.S * T.D:
                _ct.memset(a.ctypes.data, 0, a.nbytes))"));
  // The write itself faults (a KeyError or any other failure would not count).
  EXPECT_TRUE(e.verdict == Verdict::input_modified ||
              (e.verdict == Verdict::runtime_error && (has(e, "SIGSEGV") || has(e, "signal 11"))))
      << verdict_name(e.verdict) << ": " << e.reason;
}

// A stale output: half of every block left unwritten. TPU interpret mode fills fresh buffers
// with NaN, so what the kernel did not write cannot pass for a result.
TEST_F(PallasTest, UnwrittenOutputIsIncorrect) {
  auto e = run(R"(import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
import kforge_task as T

def _half(x_ref, s_ref, o_ref):
    x = x_ref[:4, :]
    ms = jnp.mean(x * x, axis=-1, keepdims=True)
    o_ref[:4, :] = x * jax.lax.rsqrt(ms + T.eps) * s_ref[...]

def kernel(x, scale):
    n = T.B * T.S
    y = pl.pallas_call(_half, out_shape=jax.ShapeDtypeStruct((n, T.D), x.dtype), grid=(n // 8,),
        in_specs=[pl.BlockSpec((8, T.D), lambda i: (i, 0)), pl.BlockSpec((1, T.D), lambda i: (0, 0))],
        out_specs=pl.BlockSpec((8, T.D), lambda i: (i, 0)))(x.reshape(n, T.D), scale.reshape(1, T.D))
    return y.reshape(T.B, T.S, T.D)
)");
  EXPECT_EQ(e.verdict, Verdict::incorrect) << e.reason;
}

// A kernel that never ends (a loop inside the Pallas body) is killed at the deadline. It spins
// in its first call, part of getting ready: the ready deadline kills it, and the test costs that
// deadline of wall clock and of a core, so it is short. Without the deadline the worker would have
// 600 s to get ready and the test would hit ctest's timeout; a machine so loaded that the worker's
// imports alone outlast 6 s would also end in this verdict, which is the deadline's rule.
TEST_F(PallasTest, SpinningKernelTimesOut) {
  auto e = run(R"(import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
import kforge_task as T

def _spin(x_ref, o_ref):
    def body(c):
        return c + x_ref[0, 0, 0] * 0.0
    o_ref[...] = jnp.broadcast_to(jax.lax.while_loop(lambda c: c >= 0.0, body, 1.0), o_ref.shape)

def kernel(x, scale):
    return pl.pallas_call(_spin, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)
)",
               false, "f32", /*ready_timeout_s=*/6);
  EXPECT_EQ(e.verdict, Verdict::timeout) << e.reason;
}

}  // namespace kforge::eval
