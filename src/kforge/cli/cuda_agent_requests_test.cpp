// The agents' requests for --target cuda, built through the same wiring the model-driven commands
// use (target_prompts, target_playbook, kernel_dialect) for a real suite task, with a fake model
// that records every request. Proves that every role (planner, coder, debugger, profiler) gets
// the CUDA material and the cuda signature (the stream parameter, <cuda_runtime.h>), the GPU and
// nvcc instead of the CPU and g++, the ptxas figures for the profiler, and none of the CPU
// material (OpenMP, AVX intrinsics, the SIMD helpers); that a reply without the stream parameter
// is sent back; and, as the control that keeps the negative checks honest, that the same wiring
// for the cpp target does carry the CPU material.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <set>

#include "kforge/agents/requests_test_util.h"
#include "kforge/cli/agent_stack.h"
#include "kforge/cli/common.h"
#include "kforge/core/paths.h"
#include "kforge/core/task_loader.h"
#include "kforge/modes/strategy_catalogue.h"
#include "kforge/targets/bound_target.h"
#include "kforge/toolchain/fake_compiler.h"

namespace kforge::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

const char* kPlan = agents::fakes::kPlanReply;
const char* kCudaSource =
    "#include \"kforge_task.h\"\n__global__ void k(const float* x, float* y) {}\n"
    "extern \"C\" void kernel(const float* x, const float* scale, float* y, cudaStream_t stream) "
    "{ k<<<1, 32, 0, stream>>>(x, y); }\n";
const char* kCppSource =
    "#include \"kforge_task.h\"\n"
    "extern \"C\" void kernel(const float* x, const float* scale, float* y) {}\n";
const char* kNoStream =
    "```cuda\n#include \"kforge_task.h\"\n"
    "extern \"C\" void kernel(const float* x, const float* scale, float* y) {}\n```\n";

// The shared recording model, whose coder's first reply lacks the stream when `forget_stream`.
class RecordingClient : public agents::fakes::RecordingClient {
 public:
  RecordingClient(agents::fakes::Requests seen, std::string kernel, bool forget_stream)
      : agents::fakes::RecordingClient(std::move(seen), std::move(kernel), "memory bandwidth"),
        forget_stream_(forget_stream) {}

 protected:
  std::string coder_reply(const llm::ChatRequest& r) override {
    return forget_stream_ && r.messages.size() == 2
               ? std::string(kNoStream)
               : agents::fakes::RecordingClient::coder_reply(r);
  }

 private:
  bool forget_stream_;
};

eval::GpuProfile h200() {
  eval::GpuProfile g;
  g.device.name = "NVIDIA H200";
  g.device.major = 9;
  g.device.minor = 0;
  g.device.sms = 132;
  g.device.memory_bytes = 150ull << 30;
  g.device.l2_bytes = 50 << 20;
  g.device.clock_khz = 1980000;
  g.peaks = {51000, 600000, 300000, 4200};
  return g;
}

eval::Evaluation timed_gpu_evaluation() {
  eval::Evaluation e;
  e.verdict = eval::Verdict::correct;
  e.reason = "correct; timed";
  e.partner = "baseline";
  e.candidate = eval::TimingStats{40, 0.05, 0.045, 0.06, 0.044};
  e.baseline = eval::TimingStats{40, 0.08, 0.075, 0.09, 0.07};
  e.speedup = eval::SpeedupStats{1.6, 1.5, 1.7, 1.55, 1.65};
  toolchain::KernelResources r;
  r.function = "_ZN12_GLOBAL__N_17rmsnormEPK6float4S2_PS0_";
  r.arch = "sm_90";
  r.registers = 168;
  r.shared_bytes = 32;
  r.spill_store_bytes = 24;
  r.spill_load_bytes = 24;
  e.compile.resources = {r};
  return e;
}

using agents::fakes::count;

class CudaAgentRequestsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto spec = core::load_task(core::source_dir() / "bench" / "jaxbench" / "12p_rmsnorm");
    ASSERT_TRUE(spec) << spec.error().message;
    spec_ = std::make_unique<core::TaskSpec>(std::move(*spec));
    auto ctx =
        eval::TaskContext::create(*spec_, "ci", host_, std::filesystem::temp_directory_path());
    ASSERT_TRUE(ctx) << ctx.error().message;
    ctx_ = std::make_unique<eval::TaskContext>(std::move(*ctx));
  }

  // Asks every role once through the wiring for `target_name`.
  void ask_every_role(const std::string& target_name, const eval::GpuProfile* device,
                      bool forget_stream = false) {
    const target::Target* target = target::find_target(target_name);
    ASSERT_NE(target, nullptr);
    prompts_ = std::make_unique<agents::PromptLibrary>(target_prompts(*target, ""));
    auto playbook = target_playbook(*target);
    ASSERT_TRUE(playbook) << playbook.error().message;
    playbook_ = std::make_unique<agents::KnowledgeIndex>(std::move(*playbook));
    bound_ = target::bind(*target, toolchain_settings());
    if (device)
      bound_.set_device(*device);
    else
      bound_.set_device_missing("no CUDA device: libcuda.so.1 is not installed");
    const bool cuda = target_name == "cuda";
    const std::string source = cuda ? kCudaSource : kCppSource;
    const std::string kernel = std::string(cuda ? "```cuda\n" : "```cpp\n") + source + "```\n";
    auto session = agents::fakes::recording_session([seen = seen_, kernel, forget_stream] {
      return std::make_unique<RecordingClient>(seen, kernel, forget_stream);
    });
    ASSERT_TRUE(session) << session.error().message;
    session_ = std::move(*session);
    agents::AgentEnv env{session_.get(), prompts_.get(), playbook_.get()};

    agents::LoopState s;
    s.task = ctx_.get();
    s.machine = &cpu_;
    s.dialect = agents::kernel_dialect(bound_, *ctx_);
    s.baseline_ms = 0.08;
    s.roofline_ms = 0.01;
    s.budget = {2, 5, 2, 0, 3};
    s.best = agents::BestKernel{source, timed_gpu_evaluation(), std::nullopt, 1, ""};
    ASSERT_TRUE(agents::plan(env, s, "Warp-level rows."));
    ASSERT_TRUE(agents::implement(env, s, agents::Plan{kPlan, "c"}, s.best->source));
    ASSERT_TRUE(agents::fix(env, s, s.best->source, "verdict: incorrect\n", {}));
    ASSERT_TRUE(agents::diagnose(env, s, s.best->source, s.best->evaluation));
  }

  std::string request(const std::string& role) const {
    return agents::fakes::first_request(*seen_, role);
  }

  toolchain::FakeCompiler host_{"g++ (test) 13.1.0", {"-O3", "-fopenmp", "-mavx2"}};
  eval::MachineProfile cpu_;  // the cpp control's CPU: empty but present
  std::unique_ptr<core::TaskSpec> spec_;
  std::unique_ptr<eval::TaskContext> ctx_;
  std::unique_ptr<agents::PromptLibrary> prompts_;
  std::unique_ptr<agents::KnowledgeIndex> playbook_;
  target::BoundTarget bound_;  // the dialect points at its compiler and device
  std::shared_ptr<std::vector<llm::ChatRequest>> seen_ =
      std::make_shared<std::vector<llm::ChatRequest>>();
  std::unique_ptr<llm::LlmSession> session_;
};

// The words that only the CPU material uses.
const std::vector<std::string>& cpu_words() {
  static const std::vector<std::string> words = {
      "OpenMP", "AVX", "immintrin", "simd_math", "_mm256",
      "ISA:",   "g++", "-fopenmp",  "for CPUs",  "```cpp\n#include \"kforge_task.h\"\n__global__"};
  return words;
}

}  // namespace

TEST_F(CudaAgentRequestsTest, EveryRoleGetsTheCudaMaterialAndNoCpuMaterial) {
  const auto device = h200();
  ask_every_role("cuda", &device);
  const std::string signature =
      "extern \"C\" void kernel(const float* x, const float* scale, float* y, cudaStream_t "
      "stream)";
  for (const char* role : {"planner", "coder", "debugger", "profiler"}) {
    SCOPED_TRACE(role);
    const std::string r = request(role);
    ASSERT_FALSE(r.empty());
    // The cuda system prompt, the device and nvcc.
    EXPECT_THAT(r, HasSubstr("compute kernels in CUDA C++ for NVIDIA"));
    EXPECT_THAT(r, HasSubstr("GPU: NVIDIA H200 (sm_90, compute capability 9.0): 132 SMs"));
    EXPECT_THAT(r, HasSubstr("4200 GB/s memory bandwidth"));
    EXPECT_THAT(r, HasSubstr("Limits per SM (sm_90): 2048 threads"));
    EXPECT_THAT(r, HasSubstr("-arch=sm_90"));
    EXPECT_THAT(r, HasSubstr("Compiler: Cuda compilation tools"));
    // kforge_task.h for cuda, once: the stream parameter and the runtime header.
    EXPECT_EQ(count(r, signature), 1u);
    EXPECT_EQ(count(r, "#include <cuda_runtime.h>"), 1u);
    EXPECT_THAT(r, HasSubstr("inline constexpr std::int64_t D = 256;"));
    for (const auto& w : cpu_words()) EXPECT_THAT(r, Not(HasSubstr(w))) << w;
  }
  // Each role's own CUDA template.
  EXPECT_THAT(request("planner"), HasSubstr("Plan the next version of a CUDA kernel"));
  EXPECT_THAT(request("planner"), HasSubstr("warp shuffles, async-copy waits"));
  EXPECT_THAT(request("coder"), HasSubstr("Reply with exactly one ```cuda code block"));
  EXPECT_THAT(request("coder"), HasSubstr("```cuda\n#include \"kforge_task.h\""));  // current
  EXPECT_THAT(request("debugger"), HasSubstr("an illegal memory access"));
  EXPECT_THAT(request("profiler"), HasSubstr("Diagnose the performance of this correct CUDA"));
}

TEST_F(CudaAgentRequestsTest, PlannerGetsTheCudaPlaybookForANormTask) {
  const auto device = h200();
  ask_every_role("cuda", &device);
  const std::string r = request("planner");
  // A norm task gets the GPU reduction sections (knowledge/cuda), not the CPU playbook's.
  EXPECT_THAT(r, HasSubstr("# Playbook excerpts\n### "));
  EXPECT_THAT(r, HasSubstr("__shfl_xor_sync"));
  EXPECT_THAT(r, Not(HasSubstr("_mm256_add_ps")));
  EXPECT_THAT(r, Not(HasSubstr("Flash attention")));  // not an attention task
}

TEST_F(CudaAgentRequestsTest, ProfilerReadsThePtxasFigures) {
  const auto device = h200();
  ask_every_role("cuda", &device);
  const std::string r = request("profiler");
  EXPECT_THAT(r, HasSubstr("# What each kernel uses (ptxas"));
  EXPECT_THAT(r, HasSubstr("168 registers"));
  EXPECT_THAT(r, HasSubstr("spills 24 B stored / 24 B loaded"));
  EXPECT_THAT(r, HasSubstr("occupancy 12% at 256 threads per block (limited by registers)"));
  EXPECT_THAT(r, HasSubstr("spills registers to local memory"));
  EXPECT_THAT(r, Not(HasSubstr("Hot spots")));  // the CPU sampler's section
}

TEST_F(CudaAgentRequestsTest, WithoutADeviceTheAgentsAreToldSoAndWhatItIsCompiledFor) {
  ask_every_role("cuda", nullptr);
  const std::string r = request("planner");
  EXPECT_THAT(r, HasSubstr("GPU: none on the machine that writes this kernel (no CUDA device: "
                           "libcuda.so.1 is not installed); kernels are compiled for sm_"));
  EXPECT_THAT(r, HasSubstr("Limits per SM (sm_"));
  EXPECT_THAT(r, Not(HasSubstr("Measured peaks")));  // no figure that was not measured
}

TEST_F(CudaAgentRequestsTest, AKernelWithoutTheStreamParameterIsSentBack) {
  const auto device = h200();
  ask_every_role("cuda", &device, /*forget_stream=*/true);
  std::vector<const llm::ChatRequest*> coder;
  for (const auto& q : *seen_)
    if (q.agent_role == "coder") coder.push_back(&q);
  ASSERT_EQ(coder.size(), 2u);  // the first reply lacked the stream: asked once more
  EXPECT_THAT(coder[1]->messages.back().content,
              HasSubstr("`kernel` takes 3 parameters, but this task's signature has 4"));
}

TEST_F(CudaAgentRequestsTest, TheCppTargetStillGetsTheCpuMaterial) {
  // The control: the same wiring for cpp carries what the cuda requests must not.
  ask_every_role("cpp", nullptr);
  const std::string coder = request("coder");
  EXPECT_THAT(coder, HasSubstr("OpenMP"));
  EXPECT_THAT(coder, HasSubstr("simd_math"));
  EXPECT_THAT(coder, HasSubstr("ISA:"));
  EXPECT_THAT(coder, Not(HasSubstr("cudaStream_t")));
}

TEST(CudaStrategies, TheCatalogueLoadsAndFitsTasksByTag) {
  const auto material = target::find_target("cuda")->agent_material();
  auto catalogue = modes::load_strategies(material.strategies_file);
  ASSERT_TRUE(catalogue) << catalogue.error().message;
  EXPECT_GE(catalogue->size(), 15u);
  std::set<std::string> ids;
  for (const auto& s : *catalogue) {
    EXPECT_TRUE(ids.insert(s.id).second) << "duplicate id " << s.id;
    EXPECT_THAT(s.text, Not(HasSubstr("OpenMP"))) << s.id;
    EXPECT_THAT(s.text, Not(HasSubstr("AVX"))) << s.id;
  }
  std::set<std::string> norm;
  for (const auto& s : modes::strategies_for(*catalogue, {"norm", "memory-bound", "production"}))
    norm.insert(s.id);
  EXPECT_TRUE(norm.count("warp_per_row"));
  EXPECT_TRUE(norm.count("coalesced_vector_access"));
  EXPECT_FALSE(norm.count("tensor_cores_mma"));  // a GEMM strategy is not offered to a norm
}

TEST(CudaPlaybook, EverySectionIsTaggedWithWordsTheTasksUse) {
  // A misspelt tag would hide a section from every task.
  std::set<std::string> task_tags = {"any"};
  for (const auto& e :
       std::filesystem::directory_iterator(core::source_dir() / "bench" / "jaxbench")) {
    auto spec = core::load_task(e.path());
    if (spec)
      for (const auto& t : spec->tags) task_tags.insert(t);
  }
  auto playbook = target_playbook(*target::find_target("cuda"));
  ASSERT_TRUE(playbook) << playbook.error().message;
  EXPECT_GE(playbook->size(), 25u);
  for (const auto& s : playbook->sections()) {
    EXPECT_FALSE(s.tags.empty()) << s.file << ": " << s.heading << " has no tags";
    for (const auto& t : s.tags) EXPECT_TRUE(task_tags.count(t)) << s.file << ": tag " << t;
  }
}

}  // namespace kforge::cli
