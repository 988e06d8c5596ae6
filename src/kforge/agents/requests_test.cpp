// What each role's request carries, rendered for a real suite task (13p_cross_entropy at the cpu
// size, whose labels come from generate.cpp) with a fake model that records the requests. Proves
// that every role is shown, exactly once each: the constants of kforge_task.h, the task notes, the
// budget left, the machine's microarchitecture and the compiler's version; that the profiler sees
// the hot lines once with their uncertainty, the tuner's table, the speedup's interval and the
// machine load, and no remarks on intrinsics loops; that the planner is told the latest baseline,
// every earlier attempt with its suggestion (a long strategy cut at a sentence, not mid-word), the
// best kernel's numbers once, and no attention playbook for a task that is not attention; and that
// no role gets a tuned kernel whose tunables are pinned ahead of their guards.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>

#include <fmt/format.h>

#include "kforge/agents/agents.h"
#include "kforge/agents/requests_test_util.h"
#include "kforge/agents/tunables.h"
#include "kforge/core/paths.h"
#include "kforge/core/task_loader.h"
#include "kforge/eval/microarch.h"
#include "kforge/toolchain/fake_compiler.h"

namespace kforge::agents {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

using fakes::count;
const char* kPlan = fakes::kPlanReply;
const char* kKernel =
    "```cpp\n#include \"kforge_task.h\"\nextern \"C\" void kernel(const float* hidden, const "
    "float* weight, "
    "const std::int32_t* labels, float* loss) {}\n```\n";

eval::MachineProfile zen4() {
  eval::MachineProfile m;
  m.cpu_model = "AMD EPYC 9654 96-Core Processor";
  m.vendor = "AuthenticAMD";
  m.cpu_family = 25;
  m.cpu_model_number = 17;
  auto arch = eval::microarchitecture(m.vendor, m.cpu_family, m.cpu_model_number, 1, m.cpu_model);
  m.microarch = arch.name;
  m.microarch_note = arch.note;
  m.clock_ghz = 2.4;
  m.clock_source = "cpu MHz";
  m.isa = {"avx2", "fma", "avx512f"};
  m.logical_cpus = 2;
  m.physical_cores = 1;
  m.caches = {{1, "Data", 32 << 10, 1}, {2, "Unified", 1 << 20, 1}, {3, "Unified", 32 << 20, 2}};
  m.fma_gflops_1 = m.fma_gflops_all = 150;
  m.triad_gbps_1 = m.triad_gbps_all = 20;
  return m;
}

const char* kTunable = R"(#include "kforge_task.h"
#include <immintrin.h>
// kforge:tune UNROLL = {1, 2, 4}
#ifndef UNROLL
#define UNROLL 1
#endif
extern "C" void kernel(const float* hidden, const float* weight, const std::int32_t* labels, float* loss) {}
)";

eval::Evaluation timed_evaluation() {
  eval::Evaluation e;
  e.verdict = eval::Verdict::correct;
  e.reason = "correct on 3 secret input sets; 1.85x the baseline (median of 40 paired runs)";
  e.partner = "baseline";
  e.candidate = eval::TimingStats{40, 0.5, 0.45, 0.6, 0.44};
  e.baseline = eval::TimingStats{40, 0.925, 0.9, 1.0, 0.88};
  e.speedup = eval::SpeedupStats{1.85, 1.7, 2.0, 1.80, 1.90};
  e.gflops = 12;
  e.gbps = 3;
  e.roofline = 0.12;
  e.load_average = 2.5;
  e.machine_busy = true;
  eval::Profile p;
  p.samples = 61;
  p.calls = 12;
  p.object_share = {{"kernel", 1.0}};
  p.hot_lines = {{7, 19, 19.0 / 61, "kernel", "  acc = _mm256_fmadd_ps(a, b, acc);"}};
  p.vectorization = {
      {6, false, "not vectorized: unsupported data-type", "for (int i = 0; i < 8; ++i)", true},
      {9, true, "loop vectorized using 32 byte vectors", "for (int v = 0; v < V; ++v)", false}};
  p.bound = "compute";
  e.profile = p;
  return e;
}

class RequestsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto spec = core::load_task(core::source_dir() / "bench" / "jaxbench" / "13p_cross_entropy");
    ASSERT_TRUE(spec) << spec.error().message;
    spec_ = std::make_unique<core::TaskSpec>(std::move(*spec));
    auto ctx =
        eval::TaskContext::create(*spec_, "cpu", compiler_, std::filesystem::temp_directory_path());
    ASSERT_TRUE(ctx) << ctx.error().message;
    ctx_ = std::make_unique<eval::TaskContext>(std::move(*ctx));
    auto playbook = KnowledgeIndex::open(core::source_dir() / "knowledge");
    ASSERT_TRUE(playbook) << playbook.error().message;
    playbook_ = std::make_unique<KnowledgeIndex>(std::move(*playbook));
    auto session = fakes::recording_session([seen = seen_] {
      return std::make_unique<fakes::RecordingClient>(seen, kKernel, "compute");
    });
    ASSERT_TRUE(session) << session.error().message;
    session_ = std::move(*session);
    env_.llm = session_.get();
    env_.prompts = &prompts_;
    env_.playbook = playbook_.get();
    state_ = loop_state();
  }

  LoopState loop_state() {
    LoopState s;
    s.task = ctx_.get();
    s.machine = &machine_;
    s.threads = 2;
    s.baseline_ms = 0.925;
    s.baseline_when = "measured beside iteration 2's kernel, the latest measurement";
    s.roofline_ms = 0.06;
    s.budget = {3, 5, 2, 1, 3};
    tuned_ = apply_config(kTunable, {{"UNROLL", "2"}});
    s.best = BestKernel{
        tuned_, timed_evaluation(), Diagnosis{"compute", "BEST-DIAGNOSIS", "BEST-SUGGESTION", true},
        2, "  variant   verdict  median ms  speedup\n  UNROLL=2  correct  0.49  1.83x  ← chosen\n"};
    AttemptRecord first;
    first.iteration = 1;
    for (int i = 0; i < 40; ++i)
      first.strategy +=
          "Block the vocabulary into slices that fit in L2 and reuse each slice for sixteen "
          "tokens. ";
    first.verdict = "correct";
    first.median_ms = 0.8;
    first.speedup = eval::SpeedupStats{1.16, 1.1, 1.2, 1.12, 1.19};
    first.roofline = 0.07;
    first.tuning = "no tunables declared";
    first.diagnosis =
        Diagnosis{"memory bandwidth", "the weight streams from DRAM once per token block",
                  "SUGGESTION-ONE: transpose the weight slice into a packed buffer so the "
                  "vocabulary loop is unit-stride",
                  true};
    AttemptRecord second;
    second.iteration = 2;
    second.strategy = "Fused online log-sum-exp.";
    second.verdict = "correct";
    second.paired = "faster than 1.156x iteration 1 (95% CI 1.120–1.190), side by side";
    s.history = {first, second};
    return s;
  }

  std::string request(const std::string& role) const { return fakes::first_request(*seen_, role); }

  void ask_every_role() {
    ASSERT_TRUE(plan(env_, state_, "Fusion: compute the chain in one pass."));
    ASSERT_TRUE(implement(env_, state_, Plan{kPlan, "c"}, state_.best->source));
    ASSERT_TRUE(fix(env_, state_, kTunable, "verdict: incorrect\nreason: 3 elements differ\n", {}));
    ASSERT_TRUE(
        diagnose(env_, state_, state_.best->source, state_.best->evaluation, state_.best->tuning));
  }

  toolchain::FakeCompiler compiler_{"g++ (test) 13.1.0", {"-O3", "-mfake-isa"}};
  std::unique_ptr<core::TaskSpec> spec_;
  std::unique_ptr<eval::TaskContext> ctx_;
  std::unique_ptr<KnowledgeIndex> playbook_;
  eval::MachineProfile machine_ = zen4();
  PromptLibrary prompts_;
  std::shared_ptr<std::vector<llm::ChatRequest>> seen_ =
      std::make_shared<std::vector<llm::ChatRequest>>();
  std::unique_ptr<llm::LlmSession> session_;
  AgentEnv env_;
  LoopState state_;
  std::string tuned_;
};

}  // namespace

TEST_F(RequestsTest, EveryRoleGetsEachFactOnce) {
  ask_every_role();
  for (const char* role : {"planner", "coder", "debugger", "profiler"}) {
    std::string r = request(role);
    SCOPED_TRACE(role);
    ASSERT_FALSE(r.empty());
    // kforge_task.h: the constants by name and type.
    EXPECT_EQ(count(r, "inline constexpr std::int64_t V = 32064;"), 1u);
    EXPECT_EQ(count(r, "inline constexpr std::int64_t labels_numel = 128;"), 1u);
    // The task notes: task.toml's comments and the generator's.
    EXPECT_EQ(count(r, "input labels: uniform in [0, V): generate.cpp"), 1u);
    EXPECT_EQ(count(r, "What the code computes: logits = hidden·W"), 1u);
    EXPECT_EQ(count(r, "generate.cpp (draws the structured inputs):"), 1u);
    EXPECT_EQ(count(r, "8.4 GFLOP, a 125 MiB weight"), 1u);  // the cpu size's comment…
    EXPECT_EQ(count(r, "deliberately not multiples"), 0u);   // …not the ci size's
    // The budget left.
    EXPECT_EQ(count(r, "Iteration 3 of 5 (2 more after this one)"), 1u);
    EXPECT_EQ(count(r, "unless this one beats the best kernel, the run ends with it"), 1u);
    // The machine: microarchitecture, what it means, clock, compiler.
    EXPECT_EQ(count(r, "Zen 4 (family 25, model 17), 2.40 GHz"), 1u);
    EXPECT_EQ(count(r, "two 256-bit halves"), 1u);
    EXPECT_EQ(count(r, "Compiler: g++ (test) 13.1.0, with -O3 -mfake-isa."),
              1u);  // the flags are the compiler's own
    EXPECT_EQ(count(r, "ISA: avx2 fma avx512f"), 1u);
    // A tuned kernel keeps its guards first: nothing pinned ahead of them.
    if (r.find("#define UNROLL") != std::string::npos) {
      EXPECT_LT(r.find("#ifndef UNROLL"), r.find("#define UNROLL"));
    }
  }
}

TEST_F(RequestsTest, ProfilerSeesMeasurementsTuningAndHotLinesOnce) {
  ask_every_role();
  std::string r = request("profiler");
  EXPECT_EQ(count(r, "hot lines of the kernel"), 1u);
  EXPECT_EQ(count(r, "     19   31.1% [21–44%]  line    7:"),
            1u);                        // samples and the share's interval
  EXPECT_EQ(count(r, "← chosen"), 1u);  // the tuner's table
  EXPECT_EQ(count(r, "1.85x against PyTorch eager, libtorch; 95% interval 1.80–1.90x"), 1u);
  EXPECT_EQ(count(r, "1.85x"), 1u);  // not again in the verdict's reason
  EXPECT_EQ(count(r, "machine load while timing: 2.5 (1-minute average): busy"), 1u);
  EXPECT_THAT(r, Not(HasSubstr("unsupported data-type")));  // the remark on an intrinsics loop
  EXPECT_EQ(count(r, "line    9: vectorized"), 1u);
  EXPECT_EQ(count(r, "(1 remark(s) on loops written with intrinsics left out"), 1u);
}

TEST_F(RequestsTest, PlannerSeesEveryAttemptWithItsSuggestion) {
  ask_every_role();
  std::string r = request("planner");
  EXPECT_EQ(
      count(r, fmt::format("Partner to beat: PyTorch eager, libtorch, 0.925 ms (measured beside "
                           "iteration 2's kernel, the latest measurement), {:.3g} GFLOP/s by "
                           "the cost model; every speedup below is against it.",
                           ctx_->task().flops / 0.925e6)),
      1u);
  // Iteration 1 was not the best: its conclusion and suggestion are kept whole.
  EXPECT_EQ(count(r,
                  "Suggested next: SUGGESTION-ONE: transpose the weight slice into a packed buffer "
                  "so the vocabulary loop is unit-stride"),
            1u);
  EXPECT_EQ(count(r, "1.16x against PyTorch eager, libtorch; 95% interval 1.12–1.19x"), 1u);
  // Its strategy (3,640 bytes, past the old 1,500-byte cut) is kept whole.
  auto tried = r.find("  Tried: Block the vocabulary");
  ASSERT_NE(tried, std::string::npos);
  EXPECT_EQ(count(r, "reuse each slice for sixteen tokens."), 40u);
  EXPECT_EQ(count(r, "[…]"), 0u);
  // Iteration 2 with its side-by-side result against iteration 1, not only its own ratio.
  EXPECT_EQ(count(r,
                  "  Side by side with the best of the time: faster than 1.156x iteration 1 (95% "
                  "CI 1.120–1.190), side by side\n"),
            1u);
  // The best kernel (iteration 2): its numbers and diagnosis once, in the standing.
  EXPECT_EQ(count(r, "1.85x"), 1u);
  EXPECT_EQ(count(r, "BEST-SUGGESTION"), 1u);
  EXPECT_EQ(count(r, "Iteration 2: the best kernel so far"), 1u);
  // The playbook is about what a cross-entropy computes (a GEMM, a softmax, a reduction).
  EXPECT_THAT(r, Not(HasSubstr("Flash-attention")));
  EXPECT_THAT(r, Not(HasSubstr("Paged KV")));
  EXPECT_THAT(r, HasSubstr("# Playbook excerpts\n### "));
}

TEST_F(RequestsTest, ALongStrategyIsCutAtAWordAndTheCutSaid) {
  std::string strategy;
  for (int i = 0; i < 100; ++i) strategy += "Pack the weight panel once per sixteen tokens. ";
  state_.history[0].strategy = strategy;  // 4,800 bytes
  ASSERT_TRUE(plan(env_, state_, ""));
  std::string r = request("planner");
  auto tried = r.find("  Tried: Pack the weight");
  ASSERT_NE(tried, std::string::npos);
  auto cut = r.find(" […] (", tried);
  ASSERT_NE(cut, std::string::npos);
  EXPECT_GT(cut - tried, 3900u);  // the first 4,000 bytes, to a word
  EXPECT_NE(r[cut - 1], ' ');
  const std::string kept = r.substr(tried + 9, cut - tried - 9);
  EXPECT_EQ(strategy.substr(0, kept.size()), kept);
  EXPECT_EQ(strategy[kept.size()], ' ');  // a whole word before the cut
  EXPECT_THAT(r.substr(cut), HasSubstr(fmt::format(" […] ({} more bytes of it cut)",
                                                   strategy.size() - kept.size())));
}

// A loop paired with XLA (--beat xla, or the pallas target) says so in every request: the
// system prompt's "timed against", the partner's time, every speedup; libtorch, measured too, is
// shown by its own name as another partner, never as what the kernels are timed against.
TEST_F(RequestsTest, ALoopPairedWithXlaNamesXla) {
  state_.baseline_name = "XLA (jax.jit)";
  state_.baseline_ms = 27.0;
  state_.baseline_when = "measured alone before the first iteration";
  state_.other_partners = {
      {"PyTorch eager, libtorch", 31.5, "measured beside XLA (jax.jit) before iteration 1"}};
  state_.best->evaluation.partner = "xla";
  ask_every_role();
  for (const char* role : {"planner", "coder", "debugger", "profiler"}) {
    SCOPED_TRACE(role);
    std::string r = request(role);
    EXPECT_EQ(count(r, "timed against\nXLA (jax.jit) (the partner)"), 1u);
    EXPECT_THAT(r, Not(HasSubstr("PyTorch eager (libtorch)")));
    EXPECT_THAT(r, Not(HasSubstr("timed against\nPyTorch")));
    EXPECT_THAT(r, Not(HasSubstr("the baseline")));
  }
  std::string planner = request("planner");
  EXPECT_EQ(count(planner,
                  fmt::format("Partner to beat: XLA (jax.jit), 27 ms (measured alone before the "
                              "first iteration), {:.3g} GFLOP/s by the cost model; every speedup "
                              "below is against it.",
                              ctx_->task().flops / 27e6)),
            1u);
  EXPECT_EQ(count(planner,
                  "Also measured: PyTorch eager, libtorch, 31.5 ms (measured beside XLA "
                  "(jax.jit) before iteration 1)."),
            1u);
  EXPECT_EQ(count(planner, "1.85x against XLA (jax.jit); 95% interval 1.80–1.90x"), 1u);
  EXPECT_EQ(count(planner, "1.16x against XLA (jax.jit); 95% interval 1.12–1.19x"), 1u);
  EXPECT_EQ(count(planner, "XLA (jax.jit) median 0.925 ms in the same pairs"), 1u);
  EXPECT_THAT(planner, Not(HasSubstr("against PyTorch")));
  std::string profiler = request("profiler");
  EXPECT_EQ(count(profiler, "speedup 1.85x against XLA (jax.jit); 95% interval 1.80–1.90x"), 1u);
  EXPECT_EQ(count(profiler, "XLA (jax.jit) median 0.925 ms in the same pairs"), 1u);
}

// A Winograd kernel's roofline fraction counts the direct convolution's FLOPs: flagged wherever
// the fraction is shown (the standing, the history, the profiler's measurements), below 100% too.
TEST_F(RequestsTest, ACheaperAlgorithmsRooflineIsFlagged) {
  state_.history[0].strategy = "Winograd F(2,3) on the 3x3 taps.";
  state_.best->source =
      "// Winograd F(2x2,3x3): 16 multiplies per tile instead of 36\n" + state_.best->source;
  ask_every_role();
  const std::string flag = "does fewer operations than the cost model counts";
  std::string planner = request("planner");
  EXPECT_EQ(count(planner, "12.0% of the roofline (it uses a Winograd convolution, which " + flag),
            1u);  // the best kernel, named by its source
  EXPECT_EQ(count(planner, "7% of the roofline (it uses a Winograd convolution, which " + flag),
            1u);                                    // iteration 1, named by its plan
  EXPECT_EQ(count(request("profiler"), flag), 2u);  // its measurements, iteration 1
}

TEST_F(RequestsTest, ADirectKernelsRooflineIsNotFlagged) {
  ask_every_role();
  EXPECT_EQ(count(request("planner"), "fewer operations"), 0u);
  EXPECT_EQ(count(request("profiler"), "fewer operations than the cost model counts"), 0u);
}

// The profiler, asked about a new kernel before the side-by-side decision, sees what it must beat:
// the best kernel's figures (not its source again) and every earlier attempt with its paired
// result.
TEST_F(RequestsTest, TheProfilerSeesTheBestKernelsFiguresAndTheHistory) {
  eval::Evaluation e = timed_evaluation();
  e.candidate = eval::TimingStats{40, 0.47, 0.45, 0.6, 0.44};
  e.speedup = eval::SpeedupStats{1.97, 1.8, 2.1, 1.93, 2.01};
  ASSERT_TRUE(diagnose(env_, state_, kTunable, e, ""));
  std::string r = request("profiler");
  EXPECT_EQ(
      count(r, "The best kernel so far (iteration 2), which this one must beat side by side:"), 1u);
  EXPECT_EQ(count(r, "1.85x against PyTorch eager, libtorch; 95% interval 1.80–1.90x"), 1u);
  EXPECT_EQ(count(r, "1.97x against PyTorch eager, libtorch"), 1u);
  EXPECT_EQ(count(r, "Profiler's diagnosis of it: BEST-DIAGNOSIS"), 1u);
  EXPECT_EQ(count(r, "Side by side with the best of the time: faster than 1.156x iteration 1"), 1u);
  EXPECT_EQ(count(r, "Partner to beat: PyTorch eager, libtorch, 0.925 ms"), 1u);
  EXPECT_EQ(count(r, tuned_), 0u);  // the best kernel's source is not sent again
}

// A loop that saw a newer, quieter peak measurement says so in its next requests.
TEST_F(RequestsTest, ARebasedPeakIsSaid) {
  state_.peaks_note = "peak re-measured: 532.6 GFLOP/s, was 485.6; rooflines re-based";
  ask_every_role();
  for (const char* role : {"planner", "profiler"})
    EXPECT_EQ(count(request(role),
                    "The machine's peak re-measured: 532.6 GFLOP/s, was 485.6; rooflines "
                    "re-based."),
              1u)
        << role;
}

TEST_F(RequestsTest, DebuggerIsToldItsFixBudget) {
  ask_every_role();
  EXPECT_EQ(count(request("debugger"), "The debugger gets up to 3 fix(es) per kernel."), 1u);
}

}  // namespace kforge::agents

namespace kforge::agents {
namespace {

// A search expansion growing a correct node 7 at depth 2, one sibling of it finished (node 9,
// incorrect) and one correct (node 10), the search's best elsewhere (node 6).
SearchStanding expansion_of_node_7(const eval::Evaluation& parent_eval) {
  SearchStanding s;
  s.expansion = "beam/d2/n7/packing";
  s.parent = {"node 7",
              "register_tiling",
              "Compute a 6x16 tile of outputs per inner step",
              true,
              parent_eval,
              "",
              "",
              "faster than 1.300x node 3 (95% CI 1.250–1.350), side by side"};
  s.parent_source = "// PARENT-KERNEL-SOURCE\n";
  s.path = {{"node 1", "root", "", false, std::nullopt, "no kernel judged (done)", "", ""},
            {"node 3", "cache_blocking", "Tile the vocabulary into L2-sized slices", true,
             std::nullopt, "correct, 0.7 ms, 1.32x (no interval kept)", "", ""}};
  SearchNode wrong{"node 9",
                   "intrinsics",
                   "AVX-512 reduction of each row",
                   false,
                   std::nullopt,
                   "incorrect: 12 elements differ",
                   "",
                   ""};
  eval::Evaluation ok;
  ok.verdict = eval::Verdict::correct;
  ok.candidate = eval::TimingStats{40, 0.52, 0.5, 0.55, 0.49};
  ok.speedup = eval::SpeedupStats{1.78, 1.7, 1.85, 1.74, 1.81};
  ok.roofline = 0.11;
  SearchNode tied{"node 10",
                  "threading",
                  "Split the tokens across the threads",
                  true,
                  ok,
                  "",
                  "",
                  "no faster than node 7 (a tie keeps it): 0.990x node 7 (95% CI 0.970–1.010), "
                  "side by side"};
  s.siblings = {wrong, tied};
  s.best = SearchNode{
      "node 6", "fusion", "", true, std::nullopt, "correct, 0.48 ms, 1.93x (no interval kept)",
      "",       ""};
  s.depth = 2;
  s.max_depth = 3;
  s.expansions_left = 4;
  return s;
}

}  // namespace

// In a search the planner of an expansion planned blind: "No correct kernel yet." and "Earlier
// attempts: None yet" while growing a correct node, with no parent, siblings, search best, depth
// or budget; only the coder saw the parent. Now the planner (and the profiler) see them all.
TEST_F(RequestsTest, AnExpansionsPlannerSeesTheParentSiblingsBestAndBudget) {
  state_.best.reset();
  state_.history.clear();
  state_.budget = {1, 1, 1, 0, 3, "search expansion"};
  state_.search = expansion_of_node_7(timed_evaluation());
  ASSERT_TRUE(plan(env_, state_, "Packing: copy operands into contiguous buffers."));
  ASSERT_TRUE(diagnose(env_, state_, kTunable, timed_evaluation(), ""));
  const std::string r = request("planner");
  EXPECT_THAT(r, Not(HasSubstr("No correct kernel yet")));
  EXPECT_THAT(r, Not(HasSubstr("None yet: this is the first attempt")));
  // The parent: its strategy, figures with the interval, hot spots and source, once each.
  EXPECT_EQ(count(r,
                  "The kernel this expansion grows: node 7 (strategy register_tiling: Compute "
                  "a 6x16 tile of outputs per inner step), correct."),
            1u);
  EXPECT_EQ(count(r, "1.85x against PyTorch eager, libtorch; 95% interval 1.80–1.90x"), 1u);
  EXPECT_EQ(count(r, "12.0% of the roofline"), 1u);
  EXPECT_EQ(count(r, "Where its time goes:"), 1u);
  EXPECT_EQ(count(r, "acc = _mm256_fmadd_ps(a, b, acc);"), 1u);
  EXPECT_EQ(count(r, "// PARENT-KERNEL-SOURCE"), 1u);
  EXPECT_EQ(count(r, "Side by side with its own parent: faster than 1.300x node 3"), 1u);
  // Its siblings with their plans' first line and results, the path, the search's best.
  EXPECT_EQ(count(r,
                  "- node 9 (intrinsics: AVX-512 reduction of each row): incorrect: 12 "
                  "elements differ."),
            1u);
  EXPECT_EQ(count(r,
                  "- node 10 (threading: Split the tokens across the threads): correct, 0.52 "
                  "ms, 1.78x against PyTorch eager, libtorch; 95% interval 1.74–1.81x, 11% of "
                  "the roofline."),
            1u);
  EXPECT_EQ(count(r, "Side by side with node 7: no faster than node 7 (a tie keeps it)"), 1u);
  EXPECT_EQ(count(r,
                  "node 1 (root) → node 3 (cache_blocking: Tile the vocabulary into L2-sized "
                  "slices) → node 7 (register_tiling"),
            1u);
  EXPECT_EQ(count(r, "The search's best so far: node 6 (fusion): correct, 0.48 ms, 1.93x"), 1u);
  // Depth and the budget left, in the search and in this expansion.
  EXPECT_EQ(count(r,
                  "Search: this expansion (beam/d2/n7/packing) grows node 7 into a node at "
                  "depth 2 of at most 3; at most 4 more expansion(s) in the search after this "
                  "one."),
            1u);
  EXPECT_EQ(count(r, "Iteration 1 of 1 (0 more after this one)"), 1u);
  EXPECT_EQ(count(r, "None yet in this expansion."), 1u);

  // The profiler: the parent this kernel must beat side by side, and the search's best.
  const std::string p = request("profiler");
  EXPECT_THAT(p, Not(HasSubstr("No correct kernel before this one")));
  EXPECT_EQ(count(p, "This expansion grew from node 7, which this kernel must beat side by side"),
            1u);
  EXPECT_EQ(count(p, "The search's best so far: node 6 (fusion)"), 1u);
  EXPECT_EQ(count(p, "at most 4 more expansion(s) in the search after this one"), 1u);
  EXPECT_EQ(count(p, "- node 10 (threading"), 1u);
}

}  // namespace kforge::agents
