// Guard checks for every task under bench/jaxbench (one test per task): a clip, clamp, mask or
// select that never fires on the task's inputs lets a kernel that leaves it out pass, so
//   - every line of reference.cpp that may hold one counts it through kforge/guard_probe.h or
//     says why it is none (the lint, guard_lint.h);
//   - at each of the task's sizes, the reference built with -DKFORGE_GUARD_PROBE runs on the
//     task's own inputs (the normal fill, then generate.cpp), and every guard must fire both ways;
//   - the reference with one guard skipped (what a kernel without it computes) must fail the
//     task's tolerance on those inputs, for every guard that can be skipped.
// The ci size runs with seeds 1, 2 and 3 (the judge checks three input sets). A size whose
// reference costs more than kRunBudgetFlops runs at the smaller shape its [guard_probe.<size>]
// declares (docs/porting.md, "Guards"): the full sizes and most cpu sizes are too large to run in
// a unit test (a naive double-precision reference takes seconds to minutes there), and the guarded
// values depend only on the symbols the probe keeps, so their distribution is the size's own.
// Also: the kernels under tests/suite/skipped_guards/ (a task's reference with one guard cut out)
// are judged incorrect at the ci size, and correct with the guard kept.
// KFORGE_SUITE_DIR selects another suite; KFORGE_SUITE_TASKS=a,b limits the tasks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <map>
#include <regex>
#include <set>

#include <fmt/format.h>

#include "guard_lint.h"
#include "kforge/core/compare.h"
#include "kforge/core/fs.h"
#include "kforge/core/paths.h"
#include "kforge/core/task_loader.h"
#include "kforge/eval/eval_test_util.h"
#include "kforge/eval/evaluate.h"
#include "kforge/runner/kernel_library.h"
#include "kforge/toolchain/cpp_compiler.h"

namespace kforge::suite {
namespace {

using eval::SharedSet;
using eval::TaskContext;

// About a fifth of a second for a plain double-precision reference on two busy cores.
constexpr double kRunBudgetFlops = 2e8;
// A guard the test cannot skip (KFORGE_GUARD_NOTE) must go each way on at least this share.
constexpr double kNoteMinShare = 0.01;

std::filesystem::path suite_dir() {
  if (const char* d = std::getenv("KFORGE_SUITE_DIR"); d && *d) return d;
  return core::source_dir() / "bench" / "jaxbench";
}

std::vector<std::string> task_names() {
  std::vector<std::string> names;
  std::string only = std::getenv("KFORGE_SUITE_TASKS") ? std::getenv("KFORGE_SUITE_TASKS") : "";
  for (const auto& dir : core::list_task_dirs(suite_dir())) {
    std::string name = dir.filename().string();
    if (only.empty() || ("," + only + ",").find("," + name + ",") != std::string::npos)
      names.push_back(name);
  }
  return names;
}

// The guard names a source declares: KFORGE_CLAMP("x", …) declares x.low and x.high.
std::set<std::string> declared_guards(const std::string& source) {
  static const std::regex use(R"re(KFORGE_(GUARD|GUARD_NOTE|CLAMP)\(\s*"([^"]+)")re");
  std::set<std::string> names;
  for (std::sregex_iterator it(source.begin(), source.end(), use), end; it != end; ++it) {
    if ((*it)[1] == "CLAMP") {
      names.insert((*it)[2].str() + ".low");
      names.insert((*it)[2].str() + ".high");
    } else {
      names.insert((*it)[2]);
    }
  }
  return names;
}

struct GuardCount {
  std::uint64_t taken = 0, not_taken = 0;
  bool skippable = true;
  double share() const {
    return taken + not_taken ? static_cast<double>(taken) / static_cast<double>(taken + not_taken)
                             : 0;
  }
};

// The reference built with -DKFORGE_GUARD_PROBE, loaded into this process (references are trusted
// code; the sandbox is for candidates).
class ProbedReference {
 public:
  static Result<ProbedReference> load(const TaskContext& ctx) {
    auto source = core::read_text(ctx.spec().reference_path());
    if (!source) return source.error();
    toolchain::CompileRequest req{toolchain::Role::reference,
                                  *source,
                                  "reference.cpp",
                                  ctx.header(),
                                  {"-DKFORGE_GUARD_PROBE"}};
    auto built = ctx.compiler().compile(req);
    if (!built.ok)
      return Error{"reference.cpp does not compile with -DKFORGE_GUARD_PROBE:\n" +
                   built.log.substr(0, 3000)};
    ProbedReference r;
    auto open = [&](const char* symbol) -> Result<void*> {
      auto lib = runner::KernelLibrary::open(built.artifact.string(), symbol);
      if (!lib) return lib.error();
      return lib->entry_address();
    };
    auto kernel = runner::KernelLibrary::open(built.artifact.string(), "kernel");
    if (!kernel) return kernel.error();
    r.kernel_ = std::make_shared<runner::KernelLibrary>(std::move(*kernel));
    auto count = open("kforge_guard_count"), get = open("kforge_guard_get"),
         reset = open("kforge_guard_reset"), skip = open("kforge_guard_skip");
    for (auto* sym : {&count, &get, &reset, &skip})
      if (!*sym)
        return Error{"reference.cpp does not include kforge/guard_probe.h: " +
                     sym->error().message};
    r.count_ = reinterpret_cast<int (*)()>(*count);
    r.get_ =
        reinterpret_cast<void (*)(int, const char**, std::uint64_t*, std::uint64_t*, int*)>(*get);
    r.reset_ = reinterpret_cast<void (*)()>(*reset);
    r.skip_ = reinterpret_cast<void (*)(const char*)>(*skip);
    return r;
  }

  // Runs kernel(inputs..., outputs...) with the guard `skip` (if any) skipped; returns the counts.
  std::map<std::string, GuardCount> run(const SharedSet& in, const SharedSet& out,
                                        const core::ResolvedTask& task,
                                        const std::string& skip = "") const {
    reset_();
    skip_(skip.empty() ? nullptr : skip.c_str());
    std::vector<void*> args;
    for (std::size_t i = 0; i < task.inputs.size(); ++i) args.push_back(in.tensor(i));
    for (std::size_t i = 0; i < task.outputs.size(); ++i) args.push_back(out.tensor(i));
    kernel_->call(args);
    skip_(nullptr);
    std::map<std::string, GuardCount> counts;
    for (int i = 0, n = count_(); i < n; ++i) {
      const char* name = nullptr;
      GuardCount c;
      int skippable = 1;
      get_(i, &name, &c.taken, &c.not_taken, &skippable);
      auto& total = counts[name];
      total.taken += c.taken;
      total.not_taken += c.not_taken;
      total.skippable = skippable != 0;
    }
    return counts;
  }

 private:
  std::shared_ptr<runner::KernelLibrary> kernel_;
  int (*count_)() = nullptr;
  void (*get_)(int, const char**, std::uint64_t*, std::uint64_t*, int*) = nullptr;
  void (*reset_)() = nullptr;
  void (*skip_)(const char*) = nullptr;
};

// Elements outside the tolerance, over all outputs, and how many were compared.
std::pair<std::int64_t, std::int64_t> mismatches(const SharedSet& actual, const SharedSet& expected,
                                                 const core::ResolvedTask& task) {
  std::int64_t bad = 0, total = 0;
  for (std::size_t i = 0; i < task.outputs.size(); ++i) {
    const auto& t = task.outputs[i];
    auto s = core::compare_buffers(t.dtype, actual.tensor(i), expected.tensor(i), t.numel,
                                   task.rtol, task.atol);
    bad += s.bad;
    total += t.numel;
  }
  return {bad, total};
}

class Guards : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    state_ = eval::test_state_dir("guards-" + GetParam());
    std::filesystem::create_directories(state_);  // generate.cpp runs there
    compiler_ = std::make_unique<toolchain::CppCompiler>(
        toolchain::CppCompilerOptions{.cache_dir = eval::test_compile_cache(),
                                      .include_dir = core::source_dir() / "bench" / "include"});
    auto spec = core::load_task(suite_dir() / GetParam());
    ASSERT_TRUE(spec.ok()) << spec.error().message;
    spec_ = std::make_unique<core::TaskSpec>(std::move(*spec));
    auto source = core::read_text(spec_->reference_path());
    ASSERT_TRUE(source.ok()) << source.error().message;
    source_ = *source;
  }
  void TearDown() override { std::filesystem::remove_all(state_); }

  // Runs the probed reference at one size (or its probe shape) and checks every guard.
  void probe_size(const std::string& size) {
    auto shrunk = core::with_guard_probe(*spec_, size);
    const core::TaskSpec& spec = shrunk ? *shrunk : *spec_;
    const std::string run_size = shrunk ? core::guard_probe_size_name(size) : size;
    auto ctx = TaskContext::create(spec, run_size, *compiler_, state_);
    ASSERT_TRUE(ctx.ok()) << ctx.error().message;
    const auto& task = ctx->task();
    if (!shrunk && task.flops > kRunBudgetFlops) {
      ADD_FAILURE() << fmt::format(
          "size '{}' costs {:.3g} GFLOP, too much to run here: declare [guard_probe.{}] in "
          "task.toml, shrinking the symbols "
          "its guarded values do not depend on (docs/porting.md, \"Guards\")",
          size, task.flops / 1e9, size);
      return;
    }
    if (shrunk) {
      ASSERT_LE(task.flops, kRunBudgetFlops)
          << "[guard_probe." << size << "] is still too large to run here";
    }
    auto reference = ProbedReference::load(*ctx);
    ASSERT_TRUE(reference.ok()) << reference.error().message;
    const std::set<std::string> declared = declared_guards(source_);
    const std::vector<std::uint64_t> seeds =
        size == "ci" ? std::vector<std::uint64_t>{1, 2, 3} : std::vector<std::uint64_t>{1};
    for (auto seed : seeds) {
      SCOPED_TRACE(fmt::format("size '{}'{}, seed {}", size,
                               shrunk ? " (its [guard_probe] shape)" : "", seed));
      auto in = ctx->make_inputs(seed);
      ASSERT_TRUE(in.ok()) << in.error().message;
      auto out = SharedSet::create(task.outputs, 1, "kforge-guard-probe");
      auto skipped = SharedSet::create(task.outputs, 1, "kforge-guard-skipped");
      ASSERT_TRUE(out.ok() && skipped.ok());
      auto counts = reference->run(*in, *out, task);
      for (const auto& name : declared)
        if (!counts.count(name)) counts[name] = GuardCount{};  // never reached: its counts are zero
      for (const auto& [name, c] : counts) {
        std::string line =
            fmt::format("{} {} seed {}: {} fires on {} of {} ({:.2f}%)", GetParam(), run_size, seed,
                        name, c.taken, c.taken + c.not_taken, 100 * c.share());
        EXPECT_GT(c.taken, 0u)
            << "guard '" << name
            << "' never fires: a kernel without it passes. Widen the inputs that reach it.";
        EXPECT_GT(c.not_taken, 0u) << "guard '" << name << "' always fires";
        if (!c.skippable) {
          EXPECT_GE(std::min(c.share(), 1 - c.share()), kNoteMinShare)
              << "guard '" << name << "' goes one way too rarely";
        } else if (c.taken > 0) {
          reference->run(*in, *skipped, task, name);
          auto [bad, total] = mismatches(*skipped, *out, task);
          line += fmt::format("; skipped: {} of {} outputs fail", bad, total);
          EXPECT_GT(bad, 0)
              << "skipping guard '" << name
              << "' stays within the tolerance: a kernel without it passes. "
              << "Widen the inputs so that it changes the outputs by more than the tolerance.";
        }
        std::cout << line << "\n";
      }
    }
  }

  std::filesystem::path state_;
  std::unique_ptr<toolchain::CppCompiler> compiler_;
  std::unique_ptr<core::TaskSpec> spec_;
  std::string source_;
};

TEST_P(Guards, LintedAndActiveAtEverySize) {
  for (const auto& f : lint_guards(source_))
    ADD_FAILURE() << "reference.cpp:" << f.line << ": " << f.why << ":\n  " << f.code
                  << "\nwrite the guard through kforge/guard_probe.h, or say why it is none: // "
                     "not a guard: … or // never fires: …";
  if (declared_guards(source_).empty()) return;  // nothing to run
  for (const auto& size : spec_->sizes) {
    SCOPED_TRACE("size " + size.name);
    probe_size(size.name);
  }
}

INSTANTIATE_TEST_SUITE_P(Jaxbench, Guards, ::testing::ValuesIn(task_names()),
                         [](const auto& info) { return info.param; });

// A reference with one guard cut out: tests/suite/skipped_guards/<task id>.cpp keeps the guard
// only under -DKFORGE_KEEP_GUARD.
std::vector<std::string> skipped_guard_kernels() {
  std::vector<std::string> ids;
  const auto tasks = task_names();
  for (const auto& f : std::filesystem::directory_iterator(core::source_dir() / "tests" / "suite" /
                                                           "skipped_guards"))
    if (f.path().extension() == ".cpp" &&
        std::find(tasks.begin(), tasks.end(), f.path().stem().string()) != tasks.end())
      ids.push_back(f.path().stem().string());
  std::sort(ids.begin(), ids.end());
  return ids;
}

class SkippedGuard : public ::testing::TestWithParam<std::string> {};

TEST_P(SkippedGuard, IsJudgedIncorrectAtTheCiSize) {
  auto state = eval::test_state_dir("skipped-guard-" + GetParam());
  toolchain::CppCompiler compiler(
      toolchain::CppCompilerOptions{.cache_dir = eval::test_compile_cache(),
                                    .include_dir = core::source_dir() / "bench" / "include"});
  auto spec = core::load_task(suite_dir() / GetParam());
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  auto ctx = TaskContext::create(*spec, "ci", compiler, state);
  ASSERT_TRUE(ctx.ok()) << ctx.error().message;
  auto source = core::read_text(core::source_dir() / "tests" / "suite" / "skipped_guards" /
                                (GetParam() + ".cpp"));
  ASSERT_TRUE(source.ok()) << source.error().message;
  eval::EvalOptions o;
  o.time = false;
  o.call_timeout_s = 60;
  {
    SCOPED_TRACE("with the guard kept, the copy agrees with the reference");
    o.extra_flags = {"-DKFORGE_KEEP_GUARD"};
    auto e = eval::evaluate(*ctx, *source, GetParam() + ".cpp", o);
    EXPECT_EQ(e.verdict, eval::Verdict::correct) << e.reason;
  }
  {
    SCOPED_TRACE("without it, the inputs expose the difference");
    o.extra_flags.clear();
    auto e = eval::evaluate(*ctx, *source, GetParam() + ".cpp", o);
    EXPECT_EQ(e.verdict, eval::Verdict::incorrect) << e.reason;
  }
  std::filesystem::remove_all(state);
}

GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(SkippedGuard);  // KFORGE_SUITE_TASKS may leave none
INSTANTIATE_TEST_SUITE_P(Jaxbench, SkippedGuard, ::testing::ValuesIn(skipped_guard_kernels()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace kforge::suite
