// One scripted `auto --target cuda` session without a GPU (issue 16, item 8): the auto loop, the
// cuda target's agents' material and dialect, nvcc compiling each reply for real and the cuda
// link policy checking it, and the GPU judge's host logic (eval::evaluate_gpu: check on the
// secret inputs, paired timing, the side-by-side decision against the best), with the device
// replaced by the fake one of gpu_judge_test. The switch is this test's own Target: a
// translation unit linked only into this test binary, so no user of kforge can reach it, and no
// verdict of a real run can come from the fake.
//
// What the fake device does with a kernel is read from the kernel's artifact, not from its
// source text: a kernel marks itself with an exported string "fake-device-ms=T" (its simulated
// time per call) and, to be wrong, "fake-device-wrong"; the fake then computes RMSNorm (or
// scribbles) on the host. The partner (the task's baseline) takes 2 ms a call.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <iterator>

#include "kforge/cli/agent_stack.h"
#include "kforge/cli/common.h"
#include "kforge/core/fs.h"
#include "kforge/core/paths.h"
#include "kforge/core/task_loader.h"
#include "kforge/eval/eval_test_util.h"
#include "kforge/modes/auto_loop.h"
#include "kforge/targets/bound_target.h"
#include "kforge/targets/evaluate_gpu.h"
#include "kforge/targets/fake_gpu_device.h"
#include "kforge/toolchain/cpp_compiler.h"

namespace kforge::cli {
namespace {

using ::testing::HasSubstr;

// The artifact's marks: the simulated milliseconds per call, and whether the kernel is wrong.
struct Marks {
  double ms = 2.0;  // unmarked: the baseline's
  bool wrong = false;
};
Marks read_marks(const std::filesystem::path& artifact) {
  Marks m;
  std::ifstream in(artifact, std::ios::binary);
  if (!in) return m;
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (auto at = bytes.find("fake-device-ms="); at != std::string::npos)
    m.ms = std::atof(bytes.c_str() + at + 15);
  m.wrong = bytes.find("fake-device-wrong") != std::string::npos;
  return m;
}

// The cuda target with its device replaced by fake ones (everything else is the real target's).
class FakeDeviceCuda : public target::Target {
 public:
  explicit FakeDeviceCuda(const target::Target& cuda) : cuda_(cuda) {}
  std::string_view name() const override { return cuda_.name(); }
  std::string_view summary() const override { return cuda_.summary(); }
  std::string kernel_extension() const override { return cuda_.kernel_extension(); }
  core::KernelAbi abi() const override { return cuda_.abi(); }
  std::string kernel_signature(const core::ResolvedTask& t) const override {
    return cuda_.kernel_signature(t);
  }
  std::string task_header(const core::ResolvedTask& t) const override {
    return cuda_.task_header(t);
  }
  std::filesystem::path expert_path(const core::TaskSpec& s) const override {
    return cuda_.expert_path(s);
  }
  std::filesystem::path baseline_path(const core::TaskSpec& s) const override {
    return cuda_.baseline_path(s);
  }
  std::unique_ptr<toolchain::Compiler> make_compiler(
      const target::ToolchainSettings& s) const override {
    return cuda_.make_compiler(s);
  }
  toolchain::LinkPolicy link_policy(const toolchain::Compiler& c,
                                    toolchain::Role r) const override {
    return cuda_.link_policy(c, r);
  }
  std::string unavailable_reason() const override { return ""; }
  target::AgentMaterial agent_material() const override { return cuda_.agent_material(); }

  eval::Evaluation evaluate(const eval::TaskContext& host, toolchain::Compiler& compiler,
                            const std::string& source, const std::string& file_name,
                            const eval::EvalOptions& options) const override {
    const auto& t = host.task();
    const std::int64_t d = 256, rows = t.outputs[0].numel / d;
    auto rmsnorm = [rows, d](std::vector<std::span<std::byte>>& a, Marks m) {
      auto* x = reinterpret_cast<const float*>(a[0].data());
      auto* scale = reinterpret_cast<const float*>(a[1].data());
      auto* y = reinterpret_cast<float*>(a[2].data());
      for (std::int64_t r = 0; r < rows; ++r) {
        double ss = 0;
        for (std::int64_t i = 0; i < d; ++i) ss += double(x[r * d + i]) * x[r * d + i];
        const double inv = 1.0 / std::sqrt(ss / d + 1e-5);
        for (std::int64_t i = 0; i < d; ++i)
          y[r * d + i] = m.wrong ? x[r * d + i] : static_cast<float>(x[r * d + i] * inv * scale[i]);
      }
      return eval::FakeLaunch{.ms = m.ms};
    };
    eval::GpuEvalSetup setup;
    setup.compiler = &compiler;
    setup.header = task_header(t);
    setup.link_policy = [this, &compiler](toolchain::Role r) { return link_policy(compiler, r); };
    setup.device_missing = [] { return std::string(); };
    setup.start_device = [this, rmsnorm](const std::filesystem::path& artifact,
                                         bool) -> Result<std::unique_ptr<eval::GpuDevice>> {
      const Marks m = read_marks(artifact);
      return std::unique_ptr<eval::GpuDevice>(std::make_unique<eval::FakeGpuDevice>(
          [rmsnorm, m](auto& args) { return rmsnorm(args, m); }, &clock_));
    };
    // The partner: --against (the best so far, compiled for real), else the baseline's stand-in.
    if (!options.against_source.empty()) {
      setup.partner_name = "against " + options.against_name;
      setup.partner_artifact = [&]() -> Result<std::filesystem::path> {
        toolchain::CompileRequest req{
            options.against_role, options.against_source, options.against_name, setup.header, {}};
        auto c = compiler.compile(req);
        if (!c.ok) return Error{"the --against kernel does not compile:\n" + c.log};
        return c.artifact;
      };
    } else {
      setup.partner_name = "baseline";
      setup.partner_artifact = [] { return Result<std::filesystem::path>("fake-baseline"); };
    }
    setup.clock = [this] { return clock_; };
    return eval::evaluate_gpu(host, setup, source, file_name, options);
  }

 private:
  const target::Target& cuda_;
  mutable double clock_ = 0;  // the fake devices' clock, in ms
};

// The model: a plan, then the coder's kernels in order; the profiler asks for more.
class ScriptedClient : public llm::ModelClient {
 public:
  explicit ScriptedClient(std::vector<std::string> kernels) : kernels_(std::move(kernels)) {}
  std::string name() const override { return "scripted"; }
  llm::LlmResult complete(const llm::ChatRequest& r, const llm::StreamCallback*) override {
    llm::ChatReply reply;
    reply.finish_reason = "stop";
    reply.usage = {100, 10, 0, 0};
    if (r.agent_role == "planner")
      reply.text =
          "## Analysis\na\n## Bottleneck\nb\n## Strategy\nwarp rows\n## Blocking\nd\n## "
          "Vectorization\ne\n## Threading\nf\n## Tunables\nnone\n## Expected gain\ng\n";
    if (r.agent_role == "coder")
      reply.text = "```cuda\n" + kernels_.at(std::min(coded_++, kernels_.size() - 1)) + "```\n";
    if (r.agent_role == "profiler")
      reply.text =
          "BOTTLENECK: memory bandwidth\nDIAGNOSIS: d\nNEEDS_IMPROVEMENT: yes\nSUGGESTION: s\n";
    requests.push_back(r);
    return reply;
  }
  std::vector<llm::ChatRequest> requests;

 private:
  std::vector<std::string> kernels_;
  std::size_t coded_ = 0;
};

std::string marked(const std::string& expert, const std::string& mark) {
  return expert + "\nextern \"C\" __attribute__((used)) const char kforge_fake_mark[] = \"" + mark +
         "\";\n";
}

}  // namespace

// A kernel that declares SPEED = {1, 2}: 1 ms a call as declared, 0.5 ms built with -DSPEED=2.
std::string tunable(const std::string& expert) {
  return expert +
         "\n// kforge:tune SPEED = {1, 2}\n#ifndef SPEED\n#define SPEED 1\n#endif\n"
         "extern \"C\" __attribute__((used)) const char kforge_fake_mark[] =\n"
         "#if SPEED == 2\n    \"fake-device-ms=0.5\";\n#else\n    "
         "\"fake-device-ms=1.0\";\n#endif\n";
}

// One `auto --target cuda` run on the fake device, its kernels written by the scripted coder.
class CudaAutoOnAFakeDevice : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* cuda = target::find_target("cuda");
    ASSERT_NE(cuda, nullptr);
    auto expert =
        core::read_text(core::source_dir() / "bench" / "jaxbench" / "12p_rmsnorm" / "expert.cu");
    ASSERT_TRUE(expert.ok());
    expert_ = *expert;
    target_ = std::make_unique<FakeDeviceCuda>(*cuda);
    auto spec = core::load_task(core::source_dir() / "bench" / "jaxbench" / "12p_rmsnorm");
    ASSERT_TRUE(spec) << spec.error().message;
    spec_ = std::make_unique<core::TaskSpec>(std::move(*spec));
    host_compiler_ = make_compiler();
    state_ = eval::test_state_dir(std::string("cuda-auto-fake-") +
                                  ::testing::UnitTest::GetInstance()->current_test_info()->name());
    auto ctx = eval::TaskContext::create(*spec_, "ci", *host_compiler_, state_);
    ASSERT_TRUE(ctx.ok()) << ctx.error().message;
    ctx_ = std::make_unique<eval::TaskContext>(std::move(*ctx));
  }
  void TearDown() override { std::filesystem::remove_all(state_); }

  // Runs the loop for `iterations` with the coder's `kernels` in order; the tuner gets
  // `tune_budget` variants (0: off).
  modes::AutoResult run(std::vector<std::string> kernels, int iterations, int tune_budget) {
    auto client = client_;
    llm::SessionOptions so;
    so.model = "openai:scripted";
    so.command = "kforge auto 12p_rmsnorm --target cuda (fake device)";
    so.state_dir = state_;  // the session's row: the run refers to it
    so.make_client = [client, kernels](const llm::ModelSpec&, const llm::ClientOptions&)
        -> llm::LlmResultOf<std::unique_ptr<llm::ModelClient>> {
      auto c = std::make_unique<ScriptedClient>(kernels);
      *client = c.get();
      return std::unique_ptr<llm::ModelClient>(std::move(c));
    };
    auto session = llm::LlmSession::open({}, so);
    EXPECT_TRUE(session) << session.error().message;
    if (!session) return {};
    session_ = std::move(*session);
    prompts_ = std::make_unique<agents::PromptLibrary>(target_prompts(*target_, ""));
    auto playbook = target_playbook(*target_);
    EXPECT_TRUE(playbook) << playbook.error().message;
    if (!playbook) return {};
    playbook_ = std::make_unique<agents::KnowledgeIndex>(std::move(*playbook));
    agents_ = agents::AgentEnv{session_.get(), prompts_.get(), playbook_.get()};

    const std::string run_id = session_->id();
    auto journal = modes::RunJournal::open(state_, run_id);
    EXPECT_TRUE(journal) << journal.error().message;
    if (!journal) return {};
    journal_.emplace(std::move(*journal));
    auto started = journal_->ledger().start_run(
        {run_id, "auto", spec_->id, "ci", store::RunState::running, "{}"});
    EXPECT_TRUE(started) << started.error().message;
    modes::AutoEnv env;
    env.ctx = ctx_.get();
    env.machine = &machine_;
    env.agents = &agents_;
    env.journal = &*journal_;
    env.run_id = run_id;
    env.eval.threads = 1;
    env.eval.warmup_s = 0;
    env.eval.min_pairs = env.eval.max_pairs = 10;
    // The fake target bound as a command binds it: its own (nvcc) compiler, no device found.
    env.target = target::bind(*target_, toolchain_settings());
    env.target.set_device_missing("no CUDA device: a fake device stands in for it");
    modes::AutoOptions ao;
    ao.iterations = iterations;
    ao.patience = iterations;
    ao.debug_attempts = 0;
    ao.time_budget_s = 0;
    ao.profile_seconds = 0;
    ao.tune.budget = tune_budget;
    ao.tune.jobs = 1;
    return modes::run_auto(env, ao);
  }

  std::string expert_;
  std::unique_ptr<FakeDeviceCuda> target_;
  std::unique_ptr<core::TaskSpec> spec_;
  std::unique_ptr<toolchain::CppCompiler> host_compiler_;
  std::filesystem::path state_;
  std::unique_ptr<eval::TaskContext> ctx_;
  std::shared_ptr<ScriptedClient*> client_ = std::make_shared<ScriptedClient*>(nullptr);
  std::unique_ptr<llm::LlmSession> session_;
  std::unique_ptr<agents::PromptLibrary> prompts_;
  std::unique_ptr<agents::KnowledgeIndex> playbook_;
  agents::AgentEnv agents_;
  std::optional<modes::RunJournal> journal_;
  eval::MachineProfile machine_;
};

TEST_F(CudaAutoOnAFakeDevice, AScriptedSessionChecksTimesAndDecidesSideBySide) {
  // Iteration 1: correct at 1 ms a call; 2: correct at 0.5 ms; 3: wrong.
  auto r = run({marked(expert_, "fake-device-ms=1.0"), marked(expert_, "fake-device-ms=0.5"),
                marked(expert_, "fake-device-ms=0.5 fake-device-wrong")},
               3, 0);

  ASSERT_FALSE(r.internal_error) << *r.internal_error;
  ASSERT_EQ(r.iterations.size(), 3u) << r.stop_reason;
  const auto& first = *r.iterations[0].evaluation;
  EXPECT_EQ(first.verdict, eval::Verdict::correct) << first.reason;
  ASSERT_TRUE(first.speedup);
  EXPECT_DOUBLE_EQ(first.speedup->median, 2.0);  // 1 ms against the baseline's 2 ms
  EXPECT_TRUE(first.timing_is_performance());
  // Iteration 2 beat iteration 1 side by side, through the cuda judge (0.5 ms against 1 ms).
  ASSERT_TRUE(r.iterations[1].decision);
  EXPECT_TRUE(r.iterations[1].decision->challenger_won()) << r.iterations[1].decision->describe();
  ASSERT_TRUE(r.iterations[1].decision->ratio);
  EXPECT_DOUBLE_EQ(r.iterations[1].decision->ratio->median, 2.0);
  EXPECT_EQ(r.iterations[2].evaluation->verdict, eval::Verdict::incorrect)
      << r.iterations[2].evaluation->reason;
  ASSERT_TRUE(r.best);
  EXPECT_EQ(r.best->iteration, 2);
  auto best = core::read_text(journal_->dir() / "best.cu");
  ASSERT_TRUE(best.ok());
  EXPECT_THAT(*best, HasSubstr("fake-device-ms=0.5\""));
  // The coder was asked for CUDA, and told there is no device.
  ASSERT_NE(*client_, nullptr);
  bool asked_for_cuda = false;
  for (const auto& q : (*client_)->requests)
    if (q.agent_role == "coder")
      for (const auto& m : q.messages)
        asked_for_cuda |= m.content.find("```cuda") != std::string::npos;
  EXPECT_TRUE(asked_for_cuda);
}

// The tuner's trials are the target's: each variant built by nvcc and timed side by side by the
// cuda judge on the (fake) device, so SPEED=2's 0.5 ms beats the declared 1 ms by 2x. Through the
// cpp judge every .cu variant failed to compile and the defaults stood.
TEST_F(CudaAutoOnAFakeDevice, TuningTrialsAreJudgedByTheCudaJudge) {
  auto r = run({tunable(expert_)}, 1, 2);

  ASSERT_FALSE(r.internal_error) << *r.internal_error;
  ASSERT_EQ(r.iterations.size(), 1u) << r.stop_reason;
  const auto& it = r.iterations[0];
  EXPECT_THAT(it.tuning, HasSubstr("SPEED=2 beat the defaults")) << it.tuning_table;
  EXPECT_THAT(it.tuning_table, HasSubstr("| SPEED=2 | SPEED=1 | correct | 2.000x |"))
      << it.tuning_table;
  ASSERT_TRUE(it.evaluation);
  EXPECT_EQ(it.evaluation->verdict, eval::Verdict::correct) << it.evaluation->reason;
  ASSERT_TRUE(it.evaluation->speedup);
  EXPECT_DOUBLE_EQ(it.evaluation->speedup->median, 4.0);  // the tuned 0.5 ms against 2 ms
  auto best = core::read_text(journal_->dir() / "best.cu");
  ASSERT_TRUE(best.ok());
  EXPECT_THAT(*best, HasSubstr("#define SPEED 2"));
}

}  // namespace kforge::cli
