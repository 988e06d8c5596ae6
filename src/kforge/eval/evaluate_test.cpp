// The evaluation pipeline end to end on real tasks at the ci size: timing against the libtorch
// baseline, compile errors, --against, the reference cache, and the secrecy of the seeds.
#include "kforge/eval/evaluate.h"
#include "kforge/eval/ci_task_fixture.h"
#include "kforge/eval/eval_test_util.h"
#include "kforge/eval/paired_timing.h"
#include "kforge/eval/runner_process.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <optional>
#include <thread>

#include "kforge/core/fs.h"
#include "kforge/core/paths.h"
#include "kforge/core/task_loader.h"
#include "kforge/eval/cpu_choice.h"
#include "kforge/toolchain/cpp_compiler.h"

namespace kforge::eval {
namespace {

using ::testing::HasSubstr;

class EvaluateTest : public CiTaskTest {
 protected:
  static void SetUpTestSuite() { open_task("evaluate", "8p_gemm"); }
  static void TearDownTestSuite() { close_task(); }
  static EvalOptions quick() {
    EvalOptions o;
    o.time_budget_s = 0.3;
    return o;
  }
};

}  // namespace

TEST_F(EvaluateTest, CorrectKernelIsTimedAgainstTheLibtorchBaseline) {
  auto e = evaluate(*ctx_, kNaiveGemm, "gemm.cpp", quick());
  ASSERT_EQ(e.verdict, Verdict::correct) << e.reason;
  EXPECT_EQ(e.partner, "baseline");
  ASSERT_TRUE(e.candidate && e.baseline && e.speedup);
  EXPECT_GE(e.candidate->samples, 10);
  EXPECT_GT(e.baseline->median_ms, 0);
  EXPECT_GT(e.gflops, 0);
  auto j = to_json(e);
  EXPECT_EQ(j["verdict"], "correct");
  // A figure when the machine was quiet; on a busy one only the ratio kept apart.
  EXPECT_EQ(j["speedup"].is_number(), !e.machine_busy);
  EXPECT_EQ(j["busy_speedup"].is_object(), e.machine_busy);
  EXPECT_TRUE(j["candidate"]["median_ms"].is_number());
  EXPECT_TRUE(j["baseline"]["median_ms"].is_number());
  // The load outside kforge, sampled before the timing and between pairs, with its verdict.
  EXPECT_GE(e.load_samples.size(), 2u);
  EXPECT_EQ(e.machine_busy, !e.busy_reason.empty());
  EXPECT_GE(j["machine_load"]["samples"].size(), 2u);
  EXPECT_TRUE(j["machine_load"]["reason"].is_string());
}

// Where an audit copies and compares more than a sampled pair, the audited pair and the next are
// checked, not timed: their calls follow other work than the rest. At the ci size outputs are
// sampled whole, so a test asks for a few lines and an audit every other pair.
TEST_F(EvaluateTest, PairsBesideAnAuditAreCheckedNotTimed) {
  auto o = quick();
  o.sample_lines = 2;
  o.audit_every = 2;
  o.min_pairs = 20;
  auto e = evaluate(*ctx_, kNaiveGemm, "gemm.cpp", o);
  ASSERT_EQ(e.verdict, Verdict::correct) << e.reason;
  ASSERT_TRUE(e.candidate);
  EXPECT_GT(e.untimed_pairs, 0);
  EXPECT_GE(e.untimed_pairs, e.audited_pairs - e.warmup_pairs - 1);  // the last one is post hoc
  EXPECT_EQ(to_json(e)["untimed_pairs"], e.untimed_pairs);
  o.sample_lines = 1024;  // the whole outputs: an audit does nothing more
  auto whole = evaluate(*ctx_, kNaiveGemm, "gemm.cpp", o);
  ASSERT_EQ(whole.verdict, Verdict::correct) << whole.reason;
  EXPECT_EQ(whole.untimed_pairs, 0);
}

// After the pairs the baseline is timed alone (a kernel that slows its partner shows as a partner
// far slower beside it than alone), each call after the pause it had beside the kernel: the
// kernel's call and stop, capped. Called back to back instead, a ci-size baseline read 1.3-2x
// faster than between the kernel's calls on a hypervisor's processors, and the timing was marked
// busy when nothing was.
TEST_F(EvaluateTest, TheBaselineAloneKeepsTheRhythmItHadBesideTheKernel) {
  MachineProfile m = describe_cpu();
  m.provisional = true;  // no peaks here: nothing is rated against them
  auto o = quick();
  o.machine = &m;
  auto e = evaluate(*ctx_, kNaiveGemm, "gemm.cpp", o);
  ASSERT_EQ(e.verdict, Verdict::correct) << e.reason;
  EXPECT_GT(e.partner_pace.alone_ms, 0);
  EXPECT_GT(e.partner_pace.alone_pause_ms, 0);
  EXPECT_LE(e.partner_pace.alone_pause_ms, kLongestAlonePauseMs);
  auto j = to_json(e);
  EXPECT_EQ(j["machine_load"]["partner_pace"]["alone_pause_ms"], e.partner_pace.alone_pause_ms);
  EXPECT_EQ(j["machine_load"]["partner_pace"]["alone_ms"], e.partner_pace.alone_ms);
}

// The baseline's progress line warns of a minute's build only when it is not in the compile cache:
// once built, it says "baseline: cached". A compiler whose cache lacks it says so without building.
TEST_F(EvaluateTest, TheBaselineLineSaysCachedOnceBuilt) {
  ASSERT_TRUE(ctx_->baseline_library().ok());
  EXPECT_TRUE(ctx_->baseline_cached());
  std::vector<std::string> lines;
  auto o = quick();
  o.progress = [&lines](std::string_view m) { lines.emplace_back(m); };
  auto e = evaluate(*ctx_, kNaiveGemm, "gemm.cpp", o);
  ASSERT_EQ(e.verdict, Verdict::correct) << e.reason;
  EXPECT_NE(std::find(lines.begin(), lines.end(), "baseline: cached"), lines.end())
      << ::testing::PrintToString(lines);
  for (const auto& l : lines) EXPECT_THAT(l, ::testing::Not(HasSubstr("first time"))) << l;

  const auto empty =
      std::filesystem::temp_directory_path() / ("kforge-empty-cache-" + std::to_string(::getpid()));
  toolchain::CppCompiler fresh({.cache_dir = empty});
  auto cold = TaskContext::create(*spec_, "ci", fresh, *state_);
  ASSERT_TRUE(cold.ok());
  EXPECT_FALSE(cold->baseline_cached());
  EXPECT_FALSE(std::filesystem::exists(empty / "obj")) << "asking built the baseline";
  std::filesystem::remove_all(empty);
}

// A speedup over libtorch is worth what libtorch's BLAS is worth on this machine: where the
// baseline is the system's libtorch (Debian's does its GEMMs with OpenBLAS) and OpenBLAS runs its
// generic kernels on a vector CPU, the evaluation says so beside the ratio (and in its JSON); a
// baseline built against a torch wheel (MKL's GEMMs) and a kernel timed against another kernel
// carry no such note.
TEST_F(EvaluateTest, ABaselineOnGenericOpenBlasKernelsIsSaidBesideItsSpeedup) {
  MachineProfile m = describe_cpu();
  m.openblas_core = "Prescott";
  m.isa = {"avx2", "avx512f"};
  m.provisional = true;  // no peaks here: nothing is rated against them
  auto o = quick();
  o.machine = &m;
  auto options = test_compiler_options();
  options.python_env = *state_ / "no-python";  // no wheel: the system's libtorch
  toolchain::CppCompiler system_torch(options);
  if (!system_torch.torch()) GTEST_SKIP() << system_torch.torch().error().message;
  auto system_ctx = TaskContext::create(*spec_, "ci", system_torch, *state_);
  ASSERT_TRUE(system_ctx.ok()) << system_ctx.error().message;
  auto e = evaluate(*system_ctx, kNaiveGemm, "gemm.cpp", o);
  ASSERT_EQ(e.verdict, Verdict::correct) << e.reason;
  ASSERT_TRUE(e.speedup);
  EXPECT_THAT(e.partner_note, HasSubstr("OPENBLAS_CORETYPE=SkylakeX"));
  EXPECT_EQ(to_json(e)["partner_note"], e.partner_note);

  if (compiler_->torch() && compiler_->torch()->wheel) {
    auto wheel = evaluate(*ctx_, kNaiveGemm, "gemm.cpp", o);
    ASSERT_EQ(wheel.verdict, Verdict::correct) << wheel.reason;
    EXPECT_EQ(wheel.partner_note, "") << compiler_->torch()->describe();
  }

  o.against_source = kNaiveGemm;
  o.against_name = "same.cpp";
  auto against = evaluate(*ctx_, kNaiveGemm, "gemm.cpp", o);
  ASSERT_EQ(against.verdict, Verdict::correct) << against.reason;
  EXPECT_EQ(against.partner_note, "");
}

// A timing that cannot have the machine from another kforge process within the bound measures
// anyway, and says so: busy, with whom it waited for. Threads beyond the CPUs are reported as
// oversubscription.
TEST_F(EvaluateTest, ContendedOrOversubscribedTimingIsMarkedBusy) {
  auto lock_file = *state_ / "machine.lock";
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  pid_t holder = ::fork();
  if (holder == 0) {
    ::alarm(30);
    auto across = ProcessLock::open({lock_file, 5, nullptr});
    if (!across) ::_exit(3);
    MachineLock lock(std::move(*across));
    auto x = lock.measure();
    (void)!::write(ready[1], "x", 1);
    ::sleep(20);
    ::_exit(0);
  }
  char c;
  ASSERT_EQ(::read(ready[0], &c, 1), 1);
  auto across = ProcessLock::open({lock_file, 0.2, nullptr});
  ASSERT_TRUE(across) << across.error().message;
  MachineLock lock(std::move(*across));
  auto o = quick();
  o.partner = EvalOptions::Partner::reference;
  o.machine_lock = &lock;
  o.threads = usable_cpus() + 2;
  auto e = evaluate(*ctx_, kNaiveGemm, "gemm.cpp", o);
  ::kill(holder, SIGKILL);
  ::waitpid(holder, nullptr, 0);
  ::close(ready[0]);
  ::close(ready[1]);
  ASSERT_EQ(e.verdict, Verdict::correct) << e.reason;
  EXPECT_TRUE(e.machine_busy);
  EXPECT_THAT(e.busy_reason,
              HasSubstr("another kforge process (pid " + std::to_string(holder) + ")"));
  EXPECT_THAT(e.busy_reason, HasSubstr("oversubscribed OpenMP"));
  EXPECT_THAT(to_json(e)["machine_load"]["reason"].get<std::string>(),
              HasSubstr("another kforge process"));
}

// Both kernel processes of an evaluation run on the CPUs chosen for it (cpu_choice.h), which it
// reports, its main thread on the first of them; with one CPU kept busy here, that is usually
// another (the choice itself is unit-tested in cpu_choice_test.cpp), and the kernel must then run
// there, not on the first CPU, whether it has one thread or all of them.
TEST_F(EvaluateTest, TheKernelRunsOnTheEvaluationsChosenCpus) {
  auto allowed = allowed_cpus();
  if (allowed.size() < 2) GTEST_SKIP() << "one CPU: there is nothing to choose";
  struct Spinner {  // keeps the first CPU busy until the test ends, however it ends
    std::atomic<bool> stop{false};
    std::thread thread;
    explicit Spinner(int cpu)
        : thread([this, cpu] {
            cpu_set_t one;
            CPU_ZERO(&one);
            CPU_SET(cpu, &one);
            sched_setaffinity(0, sizeof one, &one);
            while (!stop.load(std::memory_order_relaxed)) {
            }
          }) {}
    ~Spinner() {
      stop = true;
      thread.join();
    }
  } spinner(allowed[0]);
  const std::string printing = std::string(kNaiveGemm) + R"(
#include <sched.h>
#include <cstdio>
__attribute__((constructor)) static void say_cpus() {
  cpu_set_t s;
  sched_getaffinity(0, sizeof s, &s);
  std::printf("cpus:");
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &s)) std::printf(" %d", c);
  std::printf(";\n");
  std::fflush(stdout);
}
)";
  for (int threads : {1, static_cast<int>(allowed.size())}) {
    auto o = quick();
    o.threads = threads;
    o.partner = EvalOptions::Partner::reference;
    auto e = evaluate(*ctx_, printing, "gemm.cpp", o);
    ASSERT_EQ(e.verdict, Verdict::correct) << e.reason;
    ASSERT_EQ(e.cpus.size(), static_cast<std::size_t>(threads));
    for (int c : e.cpus) EXPECT_NE(std::find(allowed.begin(), allowed.end(), c), allowed.end());
    // The library's constructor runs on the main thread, pinned by then.
    EXPECT_THAT(e.kernel_output, HasSubstr("cpus: " + std::to_string(e.cpus[0]) + ";"))
        << threads << " threads";
    EXPECT_EQ(to_json(e)["cpus"], nlohmann::json(e.cpus));
  }
}

// A check-only evaluation's kernel process runs with OpenMP's workers sleeping as soon as a region
// ends, the user's spin settings dropped: the judge waits for them after every call and times
// nothing. A timed one keeps the user's settings, which are part of what a kernel's time is, and
// gets a bounded spin when the user set none (runner_process.h).
TEST_F(EvaluateTest, OnlyACheckOnlyEvaluationMakesOpenMpWaitPassively) {
  const std::string printing = std::string(kNaiveGemm) + R"(
#include <cstdio>
#include <cstdlib>
__attribute__((constructor)) static void say_wait_policy() {
  const char* policy = std::getenv("OMP_WAIT_POLICY");
  const char* spin = std::getenv("GOMP_SPINCOUNT");
  std::printf("policy=%s spin=%s;\n", policy ? policy : "unset", spin ? spin : "unset");
  std::fflush(stdout);
}
)";
  // Set as a user may have them; this process's own values are put back afterwards.
  const std::pair<const char*, const char*> settings[] = {{"OMP_WAIT_POLICY", "active"},
                                                          {"GOMP_SPINCOUNT", "123456"}};
  std::vector<std::optional<std::string>> saved;
  for (const auto& [name, value] : settings) {
    const char* was = std::getenv(name);
    saved.push_back(was ? std::optional<std::string>(was) : std::nullopt);
    setenv(name, value, 1);
  }
  auto o = quick();
  o.time = false;
  auto checked = evaluate(*ctx_, printing, "gemm.cpp", o);
  o.time = true;
  auto timed = evaluate(*ctx_, printing, "gemm.cpp", o);
  for (std::size_t i = 0; i < saved.size(); ++i)
    if (saved[i])
      setenv(settings[i].first, saved[i]->c_str(), 1);
    else
      unsetenv(settings[i].first);
  ASSERT_EQ(checked.verdict, Verdict::correct) << checked.reason;
  EXPECT_THAT(checked.kernel_output, HasSubstr("policy=passive spin=unset;"));
  ASSERT_EQ(timed.verdict, Verdict::correct) << timed.reason;
  EXPECT_THAT(timed.kernel_output, HasSubstr("policy=active spin=123456;"));

  for (const auto& [name, value] : settings) unsetenv(name);
  auto unset = evaluate(*ctx_, printing, "gemm.cpp", o);
  for (std::size_t i = 0; i < saved.size(); ++i)
    if (saved[i]) setenv(settings[i].first, saved[i]->c_str(), 1);
  ASSERT_EQ(unset.verdict, Verdict::correct) << unset.reason;
  EXPECT_THAT(unset.kernel_output,
              HasSubstr(fmt::format("policy=unset spin={};", kTimedSpinCount)));
}

TEST_F(EvaluateTest, CompileErrorCarriesDiagnostics) {
  auto e = evaluate(*ctx_,
                    "#include \"kforge_task.h\"\nextern \"C\" void kernel(const float* a, const "
                    "float* b, float* c) {\n  c[0] = nope;\n}\n",
                    "broken.cpp", quick());
  EXPECT_EQ(e.verdict, Verdict::compile_error);
  EXPECT_THAT(e.reason, HasSubstr("broken.cpp:3:"));
  EXPECT_THAT(e.reason, HasSubstr("c[0] = nope;"));
  EXPECT_FALSE(e.compile.diagnostics.empty());
}

TEST_F(EvaluateTest, AgainstTimesTwoKernelsAndChecksBoth) {
  auto o = quick();
  o.against_source = kNaiveGemm;
  o.against_name = "same.cpp";
  auto e = evaluate(*ctx_, kNaiveGemm, "gemm.cpp", o);
  ASSERT_EQ(e.verdict, Verdict::correct) << e.reason;
  EXPECT_EQ(e.partner, "against same.cpp");
  ASSERT_TRUE(e.speedup);

  o.against_source =
      "#include \"kforge_task.h\"\nextern \"C\" void kernel(const float* a, const float* b, float* "
      "c) {}\n";
  o.against_name = "empty.cpp";
  auto bad = evaluate(*ctx_, kNaiveGemm, "gemm.cpp", o);
  EXPECT_EQ(bad.verdict, Verdict::incorrect);
  EXPECT_THAT(bad.reason, HasSubstr("--against kernel"));
}

TEST_F(EvaluateTest, ReferenceOutputsAreCachedAndSeedsStaySecret) {
  auto o = quick();
  o.time = false;
  auto first = evaluate(*ctx_, kNaiveGemm, "gemm.cpp", o);
  ASSERT_EQ(first.verdict, Verdict::correct) << first.reason;
  std::size_t cached = 0;
  for (const auto& f : std::filesystem::directory_iterator(*state_ / "cache" / "ref"))
    cached += f.path().extension() == ".bin";
  EXPECT_EQ(cached, 3u);
  auto second = evaluate(*ctx_, kNaiveGemm, "gemm.cpp", o);
  EXPECT_EQ(second.verdict, Verdict::correct);

  auto seeds_file = *state_ / "secrets" / "8p_gemm.seeds";
  struct stat st {};
  ASSERT_EQ(stat(seeds_file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  auto seeds = core::read_text(seeds_file);
  ASSERT_TRUE(seeds.ok());
  std::string dump = to_json(second).dump();
  for (std::size_t p = 0; p + 16 <= seeds->size(); p += 17)
    EXPECT_EQ(dump.find(seeds->substr(p, 16)), std::string::npos);
}

}  // namespace kforge::eval
