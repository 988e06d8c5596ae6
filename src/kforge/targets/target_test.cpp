// The target seam and the cuda target without a GPU: the registry, the ABI each target gives
// kforge_task.h and `show`, every CUDA expert compiled and link-checked as an expert, and the
// adversarial corpus for the cuda target (tests/adversarial_cuda) judged through the cuda judge
// with no device: each file must get the host verdict its first line names (a compile error, a
// refused link, or no_device: built and linked, nothing run, never a pass).
#include "kforge/targets/target.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <thread>

#include "kforge/core/fs.h"
#include "kforge/core/paths.h"
#include "kforge/core/python_env.h"
#include "kforge/core/task_loader.h"
#include "kforge/eval/eval_test_util.h"
#include "kforge/eval/jax_backend.h"
#include "kforge/eval/task_context.h"
#include "kforge/targets/cpp_target.h"
#include "kforge/targets/cuda_process_device.h"
#include "kforge/targets/cuda_target.h"
#include "kforge/targets/evaluate_gpu.h"
#include "kforge/targets/fake_gpu_device.h"
#include "kforge/targets/gpu_batch_timing.h"
#include "kforge/targets/gpu_judge.h"
#include "kforge/toolchain/cuda_compiler.h"
#include "kforge/toolchain/elf_symbols.h"

namespace kforge::target {
namespace {

core::TaskSpec load(const std::string& id) {
  auto spec = core::load_task(core::source_dir() / "bench" / "jaxbench" / id);
  EXPECT_TRUE(spec.ok()) << id;
  return std::move(*spec);
}

// nvcc is slow and these machines have few cores: jobs run two at a time.
void two_at_a_time(std::size_t n, const std::function<void(std::size_t)>& job) {
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t i; (i = next++) < n;) job(i);
  };
  std::thread a(worker), b(worker);
  a.join();
  b.join();
}

TEST(Targets, EveryTargetIsFoundByItsName) {
  EXPECT_EQ(target_names(), (std::vector<std::string>{"cpp", "cuda", "pallas"}));
  for (const auto& n : target_names()) EXPECT_EQ(find_target(n)->name(), n);
  EXPECT_EQ(find_target("tpu"), nullptr);
  EXPECT_EQ(default_target().name(), "cpp");
}

TEST(Targets, TheCpuAbiIsUnchangedAndTheCudaAbiAddsTheStream) {
  auto spec = load("12p_rmsnorm");
  auto task = core::resolve_task(spec, "ci");
  ASSERT_TRUE(task.ok());
  const Target& cpp = *find_target("cpp");
  const Target& cuda = *find_target("cuda");
  EXPECT_EQ(cpp.kernel_signature(*task),
            "extern \"C\" void kernel(const float* x, const float* scale, float* y)");
  EXPECT_EQ(cpp.task_header(*task), core::task_header(*task));
  EXPECT_EQ(cuda.kernel_signature(*task),
            "extern \"C\" void kernel(const float* x, const float* scale, float* y, "
            "cudaStream_t stream)");
  EXPECT_NE(cuda.task_header(*task).find("#include <cuda_runtime.h>"), std::string::npos);
  EXPECT_EQ(cuda.kernel_file_name(), "kernel.cu");
  EXPECT_EQ(cuda.expert_path(spec).filename(), "expert.cu");
}

class CudaTargetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    settings_.cache_dir = eval::test_compile_cache();
    settings_.include_dir = core::source_dir() / "bench" / "include";
    settings_.cuda_arch = "sm_90";
    compiler_ = find_target("cuda")->make_compiler(settings_);
    if (!dynamic_cast<toolchain::CudaCompiler&>(*compiler_).available())
      GTEST_SKIP() << "nvcc is not installed (/usr/local/cuda)";
  }
  // The cuda judge's set-up with the device taken away: what the host side decides by itself.
  eval::GpuEvalSetup deviceless_setup(const eval::TaskContext& ctx) const {
    const Target& cuda = *find_target("cuda");
    eval::GpuEvalSetup setup;
    setup.compiler = compiler_.get();
    setup.header = cuda.task_header(ctx.task());
    setup.link_policy = [this, &cuda](toolchain::Role r) {
      return cuda.link_policy(*compiler_, r);
    };
    setup.device_missing = [] { return std::string("no CUDA device: taken away by the test"); };
    return setup;
  }
  ToolchainSettings settings_;
  std::unique_ptr<toolchain::Compiler> compiler_;
};

// Every task with an expert.cu: compiled as an expert at the sizes the GPU suite runs (ci and cpu:
// the constants differ) and held to the expert's link policy (cuBLAS, cuBLASLt, cuDNN allowed;
// nothing else). Compiles run two at a time: nvcc is slow and the machine has few cores.
TEST_F(CudaTargetTest, EveryCudaExpertCompilesAndPassesTheExpertLinkCheck) {
  const Target& cuda = *find_target("cuda");
  std::vector<core::TaskSpec> specs;
  for (const auto& dir : core::list_task_dirs(core::source_dir() / "bench" / "jaxbench"))
    if (std::filesystem::exists(dir / "expert.cu")) specs.push_back(load(dir.filename().string()));
  ASSERT_GE(specs.size(), 6u);
  std::vector<std::pair<const core::TaskSpec*, std::string>> jobs;
  for (const auto& spec : specs)
    for (const char* size : {"ci", "cpu"}) jobs.emplace_back(&spec, size);
  std::vector<std::string> failures(jobs.size());
  two_at_a_time(jobs.size(), [&](std::size_t i) {
    const auto& [spec, size] = jobs[i];
    const std::string what = spec->id + " at size " + size;
    auto task = core::resolve_task_shapes(*spec, size);
    if (!task) {
      failures[i] = what + ": " + task.error().message;
      return;
    }
    auto text = core::read_text(cuda.expert_path(*spec));
    auto c = compiler_->compile(
        {toolchain::Role::expert, *text, "expert.cu", cuda.task_header(*task), {}});
    if (!c.ok) {
      failures[i] = what + ":\n" + c.log;
      return;
    }
    auto link =
        toolchain::check_link(c.artifact, cuda.link_policy(*compiler_, toolchain::Role::expert));
    if (!link.ok()) failures[i] = what + ": " + link.reason;
  });
  for (const auto& f : failures) EXPECT_EQ(f, "");
}

// A speedup over PyTorch on the GPU needs PyTorch on the GPU: every task with a CUDA expert has
// a CUDA baseline (PyTorch eager on the device) to be timed against.
TEST(Targets, EveryTaskWithACudaExpertHasACudaBaseline) {
  const Target& cuda = *find_target("cuda");
  int experts = 0;
  for (const auto& dir : core::list_task_dirs(core::source_dir() / "bench" / "jaxbench")) {
    auto spec = load(dir.filename().string());
    if (!std::filesystem::exists(cuda.expert_path(spec))) continue;
    ++experts;
    EXPECT_TRUE(std::filesystem::exists(cuda.baseline_path(spec)))
        << spec.id << " has " << cuda.expert_path(spec).filename() << " but no "
        << cuda.baseline_path(spec).filename();
  }
  EXPECT_GE(experts, 6);
}

// The CUDA baselines: PyTorch eager on the device through the C++ API of the project's torch
// wheel (build/pyenv), compiled as baselines (host code linking libtorch_cuda), each with
// libtorch_cuda.so among its NEEDED libraries: without it PyTorch has no CUDA backend at run time
// ("Cannot initialize CUDA without ATen_cuda library").
TEST_F(CudaTargetTest, TheCudaBaselinesCompileAgainstTheWheelsTorch) {
  if (!wheel_torch_with_cuda()) GTEST_SKIP() << "no torch wheel with CUDA in build/pyenv";
  const Target& cuda = *find_target("cuda");
  std::vector<core::TaskSpec> specs;
  for (const auto& dir : core::list_task_dirs(core::source_dir() / "bench" / "jaxbench"))
    if (std::filesystem::exists(dir / "baseline.cu"))
      specs.push_back(load(dir.filename().string()));
  ASSERT_GE(specs.size(), 6u);
  std::vector<std::string> failures(specs.size());
  two_at_a_time(specs.size(), [&](std::size_t i) {
    auto task = core::resolve_task_shapes(specs[i], "ci");
    auto text = core::read_text(cuda.baseline_path(specs[i]));
    auto c = compiler_->compile(
        {toolchain::Role::baseline, *text, "baseline.cu", cuda.task_header(*task), {}});
    if (!c.ok) {
      failures[i] = specs[i].id + ":\n" + c.log.substr(0, 3000);
      return;
    }
    auto elf = toolchain::read_elf_dynamic(c.artifact);
    if (!elf)
      failures[i] = specs[i].id + ": " + elf.error().message;
    else if (std::find(elf->needed.begin(), elf->needed.end(), "libtorch_cuda.so") ==
             elf->needed.end())
      failures[i] = specs[i].id + ": libtorch_cuda.so is not NEEDED: " + c.command;
  });
  for (const auto& f : failures) EXPECT_EQ(f, "");
}

struct CorpusCase {
  std::string file, expected;
};

std::vector<CorpusCase> corpus() {
  std::vector<CorpusCase> cases;
  static const std::regex host(R"(^// host: (\w+))");
  for (const auto& e :
       std::filesystem::directory_iterator(core::source_dir() / "tests" / "adversarial_cuda")) {
    if (e.path().extension() != ".cu") continue;
    std::ifstream in(e.path());
    std::string first;
    std::getline(in, first);
    std::smatch m;
    if (std::regex_search(first, m, host)) cases.push_back({e.path().string(), m[1]});
  }
  std::sort(cases.begin(), cases.end(), [](auto& a, auto& b) { return a.file < b.file; });
  return cases;
}

// The cuda judge with the device taken away: what the host-side defences decide by themselves.
TEST_F(CudaTargetTest, TheAdversarialCorpusGetsItsHostVerdicts) {
  auto cases = corpus();
  ASSERT_GE(cases.size(), 8u);
  auto spec = load("12p_rmsnorm");
  auto host_compiler = make_cpp_compiler(settings_);
  auto state = eval::test_state_dir("cuda-corpus");
  auto ctx = eval::TaskContext::create(spec, "ci", *host_compiler, state);
  ASSERT_TRUE(ctx.ok()) << ctx.error().message;
  auto setup = deviceless_setup(*ctx);
  std::vector<eval::Evaluation> results(cases.size());
  two_at_a_time(cases.size(), [&](std::size_t i) {
    auto text = core::read_text(cases[i].file);
    results[i] = eval::evaluate_gpu(*ctx, setup, *text,
                                    std::filesystem::path(cases[i].file).filename().string(), {});
  });
  for (std::size_t i = 0; i < cases.size(); ++i)
    EXPECT_EQ(eval::verdict_name(results[i].verdict), cases[i].expected)
        << cases[i].file << ": " << results[i].reason;
  std::filesystem::remove_all(state);
}

// A GPU machine once had no Landlock and judged kernels without their file wall, saying nothing.
// Without it nothing untrusted is compiled or run unless the user asks; asked, the verdict says
// which walls held.
TEST_F(CudaTargetTest, WithoutLandlockNothingUntrustedIsJudgedUnlessAsked) {
  auto spec = load("12p_rmsnorm");
  auto host_compiler = make_cpp_compiler(settings_);
  auto state = eval::test_state_dir("cuda-no-landlock");
  auto ctx = eval::TaskContext::create(spec, "ci", *host_compiler, state);
  ASSERT_TRUE(ctx.ok()) << ctx.error().message;
  auto setup = deviceless_setup(*ctx);
  auto text =
      core::read_text(core::source_dir() / "bench" / "jaxbench" / "12p_rmsnorm" / "expert.cu");
  ASSERT_TRUE(text.ok());
  ::setenv("KFORGE_LANDLOCK_ABI", "0", 1);
  auto refused = eval::evaluate_gpu(*ctx, setup, *text, "kernel.cu", {});
  EXPECT_EQ(refused.verdict, eval::Verdict::runtime_error) << refused.reason;
  EXPECT_NE(refused.reason.find("no Landlock"), std::string::npos) << refused.reason;
  EXPECT_FALSE(refused.compile.ok) << "nvcc never read the kernel";
  ::setenv("KFORGE_ALLOW_NO_LANDLOCK", "1", 1);
  auto allowed = eval::evaluate_gpu(*ctx, setup, *text, "kernel.cu", {});
  ::unsetenv("KFORGE_ALLOW_NO_LANDLOCK");
  ::unsetenv("KFORGE_LANDLOCK_ABI");
  EXPECT_EQ(allowed.verdict, eval::Verdict::no_device) << allowed.reason;
  EXPECT_NE(allowed.walls.find("NO Landlock"), std::string::npos) << allowed.walls;
  std::filesystem::remove_all(state);
}

// The whole GPU evaluation in order, on fake devices: nvcc compiles the kernel for real, the host
// task supplies the secret inputs and reference outputs, a fake device computes RMSNorm on the
// host (the kernel 1 ms a call, the partner 2 ms), and the verdict, the paired speedup and the
// profile (ptxas figures, the roofline against given peaks) come out of evaluate_gpu.
TEST_F(CudaTargetTest, TheGpuEvaluationRunsCompileCheckTimeAndProfileInOrder) {
  auto spec = load("12p_rmsnorm");
  auto host_compiler = make_cpp_compiler(settings_);
  auto state = eval::test_state_dir("cuda-fake-eval");
  auto ctx = eval::TaskContext::create(spec, "ci", *host_compiler, state);
  ASSERT_TRUE(ctx.ok()) << ctx.error().message;
  const Target& cuda = *find_target("cuda");
  const auto& t = ctx->task();
  const std::int64_t rows = t.outputs[0].numel / 256, d = 256;
  auto rmsnorm = [rows, d](std::vector<std::span<std::byte>>& a, double ms) {
    auto* x = reinterpret_cast<const float*>(a[0].data());
    auto* scale = reinterpret_cast<const float*>(a[1].data());
    auto* y = reinterpret_cast<float*>(a[2].data());
    for (std::int64_t r = 0; r < rows; ++r) {
      double ss = 0;
      for (std::int64_t i = 0; i < d; ++i) ss += double(x[r * d + i]) * x[r * d + i];
      const double inv = 1.0 / std::sqrt(ss / d + 1e-5);
      for (std::int64_t i = 0; i < d; ++i)
        y[r * d + i] = static_cast<float>(x[r * d + i] * inv * scale[i]);
    }
    return eval::FakeLaunch{.ms = ms};
  };
  double clock = 0;
  eval::GpuPeaks peaks{.fp32_fma_gflops = 50000, .hbm_gbps = 4000};
  eval::GpuEvalSetup setup;
  setup.compiler = compiler_.get();
  setup.header = cuda.task_header(t);
  setup.link_policy = [&](toolchain::Role r) { return cuda.link_policy(*compiler_, r); };
  setup.device_missing = [] { return std::string(); };
  setup.start_device = [&](const std::filesystem::path& artifact,
                           bool trusted) -> Result<std::unique_ptr<eval::GpuDevice>> {
    const double ms = trusted ? 2.0 : 1.0;  // the partner is the trusted one here
    return std::unique_ptr<eval::GpuDevice>(std::make_unique<eval::FakeGpuDevice>(
        [&, ms](auto& args) { return rmsnorm(args, ms); }, &clock));
  };
  setup.partner_artifact = [] { return Result<std::filesystem::path>("partner.so"); };
  setup.partner_name = "baseline";
  setup.peaks = &peaks;
  setup.clock = [&clock] { return clock; };
  // Nsight Compute stands in as a device whose process prints ncu's CSV when it ends.
  struct CountedDevice : eval::FakeGpuDevice {
    using FakeGpuDevice::FakeGpuDevice;
    Result<std::string> finish() override {
      return core::read_text(core::source_dir() / "tests" / "ncu" / "details_format.csv");
    }
  };
  int counted = 0;
  setup.start_counted =
      [&](const std::filesystem::path&) -> Result<std::unique_ptr<eval::GpuDevice>> {
    ++counted;
    return std::unique_ptr<eval::GpuDevice>(
        std::make_unique<CountedDevice>([&](auto& args) { return rmsnorm(args, 1.0); }, &clock));
  };
  eval::EvalOptions opt;
  opt.time_budget_s = 0.0;
  opt.warmup_s = 0.0;
  opt.min_pairs = opt.max_pairs = 10;
  opt.profile_seconds = 1.0;
  auto source =
      core::read_text(core::source_dir() / "bench" / "jaxbench" / "12p_rmsnorm" / "expert.cu");
  // As a candidate: the expert's source uses nothing a candidate may not.
  auto e = eval::evaluate_gpu(*ctx, setup, *source, "kernel.cu", opt);
  // The counters, read once from ncu's output, for the profiler.
  EXPECT_EQ(counted, 1);
  ASSERT_EQ(e.counters.size(), 2u) << e.counters_note;
  EXPECT_NE(e.counters[0].find("Achieved Occupancy"), nullptr);
  EXPECT_EQ(e.counters_note, "");
  EXPECT_EQ(e.verdict, eval::Verdict::correct) << e.reason;
  ASSERT_TRUE(e.speedup);
  EXPECT_DOUBLE_EQ(e.speedup->median, 2.0);
  EXPECT_EQ(e.partner, "baseline");
  // Timed in batches (the fake device runs them as kforge-run-cuda does), and said so.
  EXPECT_NE(e.timing_method.find("CUDA events"), std::string::npos) << e.timing_method;
  ASSERT_TRUE(e.profile);
  ASSERT_FALSE(e.profile->gpu_kernels.empty());
  EXPECT_GT(e.profile->gpu_kernels[0].registers, 0);
  EXPECT_EQ(e.profile->bound, "memory");
  EXPECT_GT(e.roofline, 0);
  // Without ncu the evaluation says so, and the verdict is the same.
  setup.start_counted = nullptr;
  auto plain = eval::evaluate_gpu(*ctx, setup, *source, "kernel.cu", opt);
  EXPECT_EQ(plain.verdict, eval::Verdict::correct) << plain.reason;
  EXPECT_TRUE(plain.counters.empty());
  EXPECT_EQ(plain.counters_note, "Nsight Compute (ncu) is not installed in the CUDA toolkit");
  std::filesystem::remove_all(state);
}

// A peer as the cuda target's partner: kforge_cuda_worker.py serves the port's function over the
// device runner's wire (here in host memory, torch on the CPU; on a GPU its buffers are CUDA
// tensors). Its outputs pass the check against the reference, and two peers time side by side in
// batches (inputs made fresh in each process, snapshots compared): an A/A whose calls are read
// through both processes.
TEST(CudaPeers, ATorchPeerServesTheDeviceWireAndTimesInBatches) {
  if (!std::filesystem::exists(core::python_executable())) GTEST_SKIP() << "no Python env";
  EXPECT_TRUE(find_target("cuda")->accepts_partner("torch-compile"));
  EXPECT_FALSE(find_target("cuda")->accepts_partner("reference"));
  auto spec = core::load_task(core::source_dir() / "bench" / "jaxbench" / "12p_rmsnorm");
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  ToolchainSettings settings;
  settings.cache_dir = eval::test_compile_cache();
  settings.include_dir = core::source_dir() / "bench" / "include";
  auto host_compiler = make_cpp_compiler(settings);
  auto state = eval::test_state_dir("cuda-peer");
  std::filesystem::create_directories(state);
  auto ctx = eval::TaskContext::create(*spec, "ci", *host_compiler, state);
  ASSERT_TRUE(ctx.ok()) << ctx.error().message;
  auto host = [&](const eval::SharedSet& set, const std::vector<core::ResolvedTensor>& ts) {
    eval::HostSet h;
    for (std::size_t i = 0; i < ts.size(); ++i) {
      const auto* p = reinterpret_cast<const std::byte*>(set.tensor(i));
      h.tensors.emplace_back(p, p + ts[i].bytes);
    }
    return h;
  };
  auto in = ctx->make_inputs(11);
  ASSERT_TRUE(in.ok());
  auto ref = ctx->reference_outputs(*in, 11);
  ASSERT_TRUE(ref.ok()) << ref.error().message;
  const auto& task = ctx->task();
  std::vector<std::unique_ptr<eval::GpuDevice>> peers;
  std::vector<eval::DeviceSet> sets;
  for (const char* name : {"a", "b"}) {
    auto d = eval::start_python_gpu_device(*spec, task, "torch", state / name, true);
    ASSERT_TRUE(d.ok()) << d.error().message;
    auto b = eval::allocate_set(**d, task);
    ASSERT_TRUE(b.ok());
    peers.push_back(std::move(*d));
    sets.push_back(*b);
  }
  eval::Evaluation e;
  auto j = eval::gpu_check(*peers[0], sets[0], task, {host(*in, task.inputs)},
                           {host(*ref, task.outputs)}, 30, e);
  EXPECT_FALSE(j) << j->reason;
  eval::PairedTimingRequest req;
  req.budget_s = 0;
  req.warmup_s = 0;
  req.min_pairs = req.max_pairs = 4;
  std::uint64_t seed = 3;
  eval::GpuTimingInfo info;
  auto t = eval::gpu_paired_timing(
      *peers[0], sets[0], peers[1].get(), &sets[1], task, host(*in, task.inputs), req,
      [&] { return seed++; }, eval::steady_ms_clock(), &info);
  ASSERT_FALSE(t.failure) << t.failure->reason;
  EXPECT_TRUE(info.batched) << info.why_not_batched;
  EXPECT_EQ(t.candidate_ms.size(), 4u);
  std::filesystem::remove_all(state);
}

// The sanitizer pass inside the GPU evaluation, on fake devices whose processes print what
// compute-sanitizer printed (tests/sanitizer): racecheck's clean summary from the H200 passes a
// correct candidate (it was a runtime_error: "ended without its summary"), memcheck's
// out-of-bounds write fails it naming the write, a race fails it naming both accesses, and a
// report kforge cannot read leaves the verdict to the plain check and says so in a note.
TEST_F(CudaTargetTest, TheSanitizerPassDecidesOnEachToolsSummary) {
  auto spec = load("12p_rmsnorm");
  auto host_compiler = make_cpp_compiler(settings_);
  auto state = eval::test_state_dir("cuda-fake-sanitizer");
  auto ctx = eval::TaskContext::create(spec, "ci", *host_compiler, state);
  ASSERT_TRUE(ctx.ok()) << ctx.error().message;
  const Target& cuda = *find_target("cuda");
  const auto& t = ctx->task();
  const std::int64_t rows = t.outputs[0].numel / 256, d = 256;
  auto rmsnorm = [rows, d](std::vector<std::span<std::byte>>& a) {
    auto* x = reinterpret_cast<const float*>(a[0].data());
    auto* scale = reinterpret_cast<const float*>(a[1].data());
    auto* y = reinterpret_cast<float*>(a[2].data());
    for (std::int64_t r = 0; r < rows; ++r) {
      double ss = 0;
      for (std::int64_t i = 0; i < d; ++i) ss += double(x[r * d + i]) * x[r * d + i];
      const double inv = 1.0 / std::sqrt(ss / d + 1e-5);
      for (std::int64_t i = 0; i < d; ++i)
        y[r * d + i] = static_cast<float>(x[r * d + i] * inv * scale[i]);
    }
    return eval::FakeLaunch{};
  };
  // A device whose process prints `report` when it ends, as the runner under a tool does.
  struct ReportingDevice : eval::FakeGpuDevice {
    ReportingDevice(Kernel k, double* clock, std::string report)
        : FakeGpuDevice(std::move(k), clock), report_(std::move(report)) {}
    Result<std::string> finish() override { return report_; }
    std::string report_;
  };
  double clock = 0;
  std::map<std::string, std::string> printed;  // tool -> what its process prints
  eval::GpuEvalSetup setup;
  setup.compiler = compiler_.get();
  setup.header = cuda.task_header(t);
  setup.link_policy = [&](toolchain::Role r) { return cuda.link_policy(*compiler_, r); };
  setup.device_missing = [] { return std::string(); };
  setup.start_device = [&](const std::filesystem::path&,
                           bool) -> Result<std::unique_ptr<eval::GpuDevice>> {
    return std::unique_ptr<eval::GpuDevice>(std::make_unique<eval::FakeGpuDevice>(rmsnorm, &clock));
  };
  setup.sanitizer_tools = {"memcheck", "racecheck"};
  setup.start_sanitized = [&](const std::filesystem::path&,
                              const std::string& tool) -> Result<std::unique_ptr<eval::GpuDevice>> {
    return std::unique_ptr<eval::GpuDevice>(
        std::make_unique<ReportingDevice>(rmsnorm, &clock, printed[tool]));
  };
  auto fixture = [](const std::string& name) {
    return *core::read_text(core::source_dir() / "tests" / "sanitizer" / name);
  };
  auto source =
      core::read_text(core::source_dir() / "bench" / "jaxbench" / "12p_rmsnorm" / "expert.cu");
  eval::EvalOptions opt;
  opt.time = false;
  auto judge = [&] { return eval::evaluate_gpu(*ctx, setup, *source, "kernel.cu", opt); };

  printed = {{"memcheck", fixture("memcheck_clean.txt")},
             {"racecheck", fixture("racecheck_clean_h200.txt")}};
  auto clean = judge();
  EXPECT_EQ(clean.verdict, eval::Verdict::correct) << clean.reason;
  EXPECT_EQ(clean.sanitizer_note, "");

  printed["memcheck"] = fixture("memcheck_out_of_bounds.txt");
  auto oob = judge();
  EXPECT_EQ(oob.verdict, eval::Verdict::runtime_error);
  EXPECT_NE(oob.reason.find("compute-sanitizer memcheck found 2 errors: Invalid __global__ write "
                            "of size 4 bytes at past_end(float *)+0x70"),
            std::string::npos)
      << oob.reason;

  printed = {{"memcheck", fixture("memcheck_clean.txt")},
             {"racecheck", fixture("racecheck_race.txt")}};
  auto race = judge();
  EXPECT_EQ(race.verdict, eval::Verdict::runtime_error);
  EXPECT_NE(race.reason.find("compute-sanitizer racecheck found 1 error: Race reported between "
                             "Write access at block_sum"),
            std::string::npos)
      << race.reason;

  printed["racecheck"] = "========= COMPUTE-SANITIZER\n";
  auto unread = judge();
  EXPECT_EQ(unread.verdict, eval::Verdict::correct) << unread.reason;
  EXPECT_NE(unread.sanitizer_note.find("compute-sanitizer racecheck: its output has no summary"),
            std::string::npos)
      << unread.sanitizer_note;
  std::filesystem::remove_all(state);
}

TEST_F(CudaTargetTest, WithoutADeviceEvaluationSaysSoAndNeverPasses) {
  if (find_target("cuda")->unavailable_reason().empty()) GTEST_SKIP() << "a CUDA device is here";
  auto spec = load("12p_rmsnorm");
  auto host_compiler = make_cpp_compiler(settings_);
  auto state = eval::test_state_dir("cuda-nodevice");
  auto ctx = eval::TaskContext::create(spec, "ci", *host_compiler, state);
  ASSERT_TRUE(ctx.ok());
  auto text =
      core::read_text(core::source_dir() / "bench" / "jaxbench" / "12p_rmsnorm" / "expert.cu");
  eval::EvalOptions opt;
  opt.role = toolchain::Role::expert;
  auto e = find_target("cuda")->evaluate(*ctx, *compiler_, *text, "expert.cu", opt);
  EXPECT_EQ(e.verdict, eval::Verdict::no_device) << e.reason;
  EXPECT_NE(e.reason.find("no CUDA device"), std::string::npos);
  EXPECT_FALSE(e.correct());
  std::filesystem::remove_all(state);
}

}  // namespace
// The pallas target's kernel is a Python function: its signature names the inputs and outputs
// with their dtypes and shapes, and its "header" is kforge_task.py; its files are the task's
// expert_pallas.py and workload.py (the XLA baseline).
TEST(Targets, ThePallasSignatureIsAPythonFunction) {
  auto spec = load("12p_rmsnorm");
  auto task = core::resolve_task(spec, "ci");
  ASSERT_TRUE(task.ok());
  const Target& pallas = *find_target("pallas");
  EXPECT_EQ(pallas.kernel_file_name(), "kernel.py");
  auto sig = pallas.kernel_signature(*task);
  EXPECT_EQ(sig.rfind("def kernel(x, scale):  # -> y", 0), 0u) << sig;
  EXPECT_NE(sig.find("x: f32[2, 8, 256]"), std::string::npos) << sig;
  EXPECT_NE(pallas.task_header(*task).find("INPUTS = ("), std::string::npos);
  EXPECT_EQ(pallas.baseline_path(spec).filename(), "workload.py");
  // On a GPU backend, the task's GPU kernel (target::pallas_expert_for).
  EXPECT_EQ(pallas.expert_path(spec).filename(), eval::this_jax_backend().platform == "cuda"
                                                     ? "expert_pallas_gpu.py"
                                                     : "expert_pallas.py");
}

}  // namespace kforge::target
