// The GPU evaluation's orchestrator (evaluate_gpu.h says the order). The decisive steps are the
// same functions as the cpu target's (judge_compile, the link check, the comparison, the timing
// statistics) or gpu_judge.cpp's; this file only puts them in order.
#include "kforge/targets/evaluate_gpu.h"

#include <fmt/format.h>

#include <chrono>
#include <cstring>
#include <random>

#include "kforge/core/clock.h"
#include "kforge/eval/secret_seeds.h"
#include "kforge/eval/steps.h"
#include "kforge/eval/walls.h"
#include "kforge/targets/cuda_process_device.h"
#include "kforge/targets/gpu_batch_timing.h"
#include "kforge/targets/gpu_judge.h"
#include "kforge/targets/sanitizer_report.h"

namespace kforge::eval {
namespace {

using core::Clock;

HostSet host_copy(const SharedSet& set, const std::vector<core::ResolvedTensor>& tensors) {
  HostSet h;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const auto* p = reinterpret_cast<const std::byte*>(set.tensor(i));
    h.tensors.emplace_back(p, p + tensors[i].bytes);
  }
  return h;
}

std::optional<Judgement> judge_built(const toolchain::CompileResult& c, toolchain::Role role,
                                     const GpuEvalSetup& setup, const EvalOptions& opt) {
  if (auto j = judge_compile(c)) return j;
  if (role == toolchain::Role::baseline || role == toolchain::Role::reference) return std::nullopt;
  if (!setup.link_policy) return std::nullopt;  // a Python kernel (pallas) links nothing
  auto policy = setup.link_policy(role);
  policy.extra_libs.insert(policy.extra_libs.end(), opt.allow_libs.begin(), opt.allow_libs.end());
  auto link = toolchain::check_link(c.artifact, policy);
  if (link.ok()) return std::nullopt;
  if (link.problem == toolchain::LinkProblem::missing_entry)
    return Judgement{Verdict::compile_error, link.reason};
  return Judgement{Verdict::link_refused, link.reason};
}

class GpuEvaluationRun {
 public:
  GpuEvaluationRun(const TaskContext& host, const GpuEvalSetup& setup, const std::string& source,
                   const std::string& file_name, const EvalOptions& opt)
      : host_(host), setup_(setup), source_(source), file_name_(file_name), opt_(opt) {
    e_.task_id = host.spec().id;
    e_.size = host.task().size;
    e_.role = std::string(toolchain::role_name(opt.role));
    e_.threads = 1;
    e_.walls = walls_.describe();
    e_.landlock_abi = walls_.landlock_abi;
  }

  Evaluation run() {
    // Untrusted code (and nvcc reading it) runs only behind the walls (walls.h): a GPU machine
    // once had no Landlock and judged kernels without their file wall, saying nothing.
    if (opt_.role == toolchain::Role::candidate)
      if (auto j = refuse_untrusted(walls_)) return finish(*j);
    using Step = std::optional<Judgement> (GpuEvaluationRun::*)();
    struct NamedStep {
      Step step;
      const char* name;  // for "interrupted (Ctrl-C) while …"
    };
    static constexpr NamedStep kSteps[] = {
        // 1. nvcc, in the compile sandbox; the link check
        {&GpuEvaluationRun::compile, "compiling"},
        // 2. no device: say so, check and time nothing
        {&GpuEvaluationRun::find_device, "finding the device"},
        // 3. secret inputs and reference outputs, on the host
        {&GpuEvaluationRun::prepare_inputs, "preparing the check inputs"},
        // 4. every check set on the device, and the first again under compute-sanitizer
        {&GpuEvaluationRun::check, "checking"},
        {&GpuEvaluationRun::sanitize, "checking under compute-sanitizer"},
        // 5. paired with the partner, on kforge's clock
        {&GpuEvaluationRun::time, "timing"},
        // 6. hardware counters, when a profile was asked for
        {&GpuEvaluationRun::count, "profiling"},
    };
    for (const auto& [step, name] : kSteps) {
      step_ = name;
      if (cancelled()) return finish({Verdict::interrupted, ""});
      if (auto j = (this->*step)()) return finish(*j);
    }
    return finish({Verdict::correct, opt_.time ? "correct; timed" : "correct"});
  }

 private:
  void say(std::string_view m) const {
    if (opt_.progress) opt_.progress(m);
  }
  bool cancelled() const { return opt_.cancel && opt_.cancel->load(); }

  // A step that failed because Ctrl-C killed its process (or nvcc) is no verdict on the kernel.
  Evaluation finish(Judgement j) {
    j = unless_interrupted(std::move(j), opt_.cancel, step_);
    e_.verdict = j.verdict;
    e_.reason = j.reason;
    e_.phases.total_s = core::seconds_since(start_);
    return std::move(e_);
  }

  std::optional<Judgement> compile() {
    say("compiling (nvcc)");
    toolchain::CompileRequest req{opt_.role, source_, file_name_, setup_.header, opt_.extra_flags};
    e_.compile = setup_.compiler->compile(req);
    e_.phases.compile_s = e_.compile.seconds;
    return judge_built(e_.compile, opt_.role, setup_, opt_);
  }

  std::optional<Judgement> find_device() {
    std::string missing = setup_.device_missing ? setup_.device_missing() : std::string{};
    if (missing.empty()) return std::nullopt;
    return Judgement{Verdict::no_device,
                     missing +
                         ". The kernel compiled and passed the link check; checking and "
                         "timing it need a GPU"};
  }

  std::optional<Judgement> prepare_inputs() {
    say("preparing check inputs");
    auto t0 = Clock::now();
    auto seeds = secret_seeds(host_.state_dir(), host_.spec().id, opt_.check_sets);
    if (!seeds) return Judgement{Verdict::runtime_error, seeds.error().message};
    for (auto seed : *seeds) {
      auto in = host_.make_inputs(seed);
      if (!in) return Judgement{Verdict::runtime_error, in.error().message};
      auto ref = host_.reference_outputs(*in, seed);
      if (!ref) return Judgement{Verdict::runtime_error, ref.error().message};
      inputs_.push_back(host_copy(*in, host_.task().inputs));
      references_.push_back(host_copy(*ref, host_.task().outputs));
    }
    auto timing =
        host_.make_inputs(std::random_device{}() * 0x100000001ULL ^ std::random_device{}());
    if (!timing) return Judgement{Verdict::runtime_error, timing.error().message};
    timing_inputs_ = host_copy(*timing, host_.task().inputs);
    e_.phases.prepare_s = core::seconds_since(t0);
    return std::nullopt;
  }

  std::optional<Judgement> check() {
    say("checking on the device");
    auto t0 = Clock::now();
    auto device = setup_.start_device(e_.compile.artifact, opt_.role != toolchain::Role::candidate);
    if (!device) return judge_start_failure(device.error().message);
    candidate_ = std::move(*device);
    auto buffers = allocate_set(*candidate_, host_.task());
    if (!buffers) return Judgement{Verdict::runtime_error, buffers.error().message};
    candidate_buffers_ = std::move(*buffers);
    auto j = gpu_check(*candidate_, candidate_buffers_, host_.task(), inputs_, references_,
                       opt_.call_timeout_s, e_);
    e_.phases.check_s = core::seconds_since(t0);
    return j;
  }

  // Each tool's summary decides (sanitizer_report.h); what cannot be decided is a note, so a tool
  // that could not run, or printed nothing kforge can read, never fails a kernel the plain check
  // passed.
  std::optional<Judgement> sanitize() {
    if (!setup_.start_sanitized || opt_.role != toolchain::Role::candidate) return std::nullopt;
    for (const auto& tool : setup_.sanitizer_tools) {
      say("checking under compute-sanitizer " + tool);
      auto device = setup_.start_sanitized(e_.compile.artifact, tool);
      if (!device) {
        add_sanitizer_note("compute-sanitizer " + tool + " could not start the kernel's process: " +
                           device.error().message.substr(0, 500));
        continue;
      }
      auto buffers = allocate_set(**device, host_.task());
      // A sanitized call runs tens of times slower: ten times the call's allowance.
      Evaluation scratch;
      std::optional<Judgement> j =
          buffers ? gpu_check(**device, *buffers, host_.task(), {inputs_.front()},
                              {references_.front()}, 10 * opt_.call_timeout_s, scratch)
                  : Judgement{Verdict::runtime_error, buffers.error().message};
      auto report = (*device)->finish();
      auto pass = judge_sanitizer_pass(tool, report ? *report : report.error().message, j);
      add_sanitizer_note(pass.note);
      if (pass.verdict) return pass.verdict;
    }
    return std::nullopt;
  }

  void add_sanitizer_note(const std::string& note) {
    if (note.empty()) return;
    e_.sanitizer_note += (e_.sanitizer_note.empty() ? "" : "\n") + note;
  }

  // Never a verdict: counters that cannot be read are a note for the profiler.
  std::optional<Judgement> count() {
    if (opt_.profile_seconds <= 0 || opt_.role != toolchain::Role::candidate) return std::nullopt;
    if (!setup_.start_counted) {
      e_.counters_note = "Nsight Compute (ncu) is not installed in the CUDA toolkit";
      return std::nullopt;
    }
    say("reading hardware counters (Nsight Compute)");
    auto device = setup_.start_counted(e_.compile.artifact);
    if (!device) {
      e_.counters_note = "ncu: " + device.error().message.substr(0, 500);
      return std::nullopt;
    }
    auto buffers = allocate_set(**device, host_.task());
    if (!buffers) {
      e_.counters_note = "ncu: " + buffers.error().message;
      return std::nullopt;
    }
    // ncu replays each launch once per counter pass: far slower than a plain call.
    Evaluation scratch;
    gpu_check(**device, *buffers, host_.task(), {inputs_.front()}, {references_.front()},
              20 * opt_.call_timeout_s, scratch);
    auto report = (*device)->finish();
    auto kernels = parse_ncu_csv(report ? *report : report.error().message);
    if (kernels && !kernels->empty())
      e_.counters = std::move(*kernels);
    else
      e_.counters_note = kernels ? "ncu profiled no kernel launch" : kernels.error().message;
    return std::nullopt;
  }

  std::optional<Judgement> time() {
    if (!opt_.time) return std::nullopt;
    std::unique_ptr<GpuDevice> partner;
    DeviceSet partner_buffers;
    if (setup_.start_partner) {
      say("starting the " + setup_.partner_name + " peer on the device (it compiles first)");
      auto p = setup_.start_partner();
      if (!p) return Judgement{Verdict::runtime_error, p.error().message};
      partner = std::move(*p);
      auto b = allocate_set(*partner, host_.task());
      if (!b) return Judgement{Verdict::runtime_error, b.error().message};
      partner_buffers = std::move(*b);
      e_.partner = setup_.partner_name;
    } else if (setup_.partner_artifact) {
      say("building the " + setup_.partner_name);
      auto artifact = setup_.partner_artifact();
      if (!artifact) return Judgement{Verdict::runtime_error, artifact.error().message};
      if (!artifact->empty()) {
        auto p = setup_.start_device(*artifact, true);
        if (!p) return Judgement{Verdict::runtime_error, p.error().message};
        partner = std::move(*p);
        auto b = allocate_set(*partner, host_.task());
        if (!b) return Judgement{Verdict::runtime_error, b.error().message};
        partner_buffers = std::move(*b);
        e_.partner = setup_.partner_name;
      }
    }
    say("timing, paired and interleaved");
    // One measurement at a time on the machine (its CPU side drives the device and reads the
    // clock): the same lock as the cpu target's timings.
    std::optional<MachineLock::Exclusive> hold;
    if (opt_.machine_lock) hold.emplace(opt_.machine_lock->measure());
    auto t0 = Clock::now();
    PairedTimingRequest req;
    req.budget_s = opt_.time_budget_s;
    req.warmup_s = opt_.warmup_s;
    req.min_pairs = opt_.min_pairs;
    req.max_pairs = opt_.max_pairs;
    req.perturb = opt_.perturb;
    req.call_timeout_s = opt_.call_timeout_s;
    req.cancel = opt_.cancel;
    std::random_device rd;
    GpuTimingInfo info;
    auto timed = gpu_paired_timing(
        *candidate_, candidate_buffers_, partner.get(), partner ? &partner_buffers : nullptr,
        host_.task(), timing_inputs_, req, [&rd] { return (std::uint64_t{rd()} << 32) ^ rd(); },
        setup_.clock ? MsClock(setup_.clock) : steady_ms_clock(), &info);
    e_.phases.time_s = core::seconds_since(t0);
    e_.timing_method = timing_method(info);
    if (auto j = judge_timing(timed, host_.task(), e_)) return j;
    profile();
    return std::nullopt;
  }

  static std::string timing_method(const GpuTimingInfo& info) {
    if (info.batched)
      return fmt::format(
          "CUDA events, {} call{} per sample; inputs made fresh on the device, L2 "
          "flushed before each call",
          info.calls_per_sample, info.calls_per_sample == 1 ? "" : "s");
    return "call by call on kforge's clock, inputs uploaded per call" +
           (info.why_not_batched.empty() ? std::string{}
                                         : " (no batches: " + info.why_not_batched + ")");
  }

  // What there is to profile without the device's counters: the roofline against the measured
  // peaks and ptxas's figures per kernel.
  void profile() {
    Profile p;
    p.gpu_kernels = e_.compile.resources;
    p.gflops = e_.gflops;
    p.gbps = e_.gbps;
    const auto& t = host_.task();
    p.arithmetic_intensity = t.bytes > 0 ? t.flops / t.bytes : 0;
    if (setup_.peaks && e_.candidate) {
      p.machine_balance = setup_.peaks->ridge_fp32();
      p.bound = p.arithmetic_intensity < p.machine_balance ? "memory" : "compute";
      p.roofline =
          gpu_roofline_fraction(t.flops, t.bytes, e_.candidate->median_ms / 1e3, *setup_.peaks);
      e_.roofline = p.roofline;
    }
    e_.profile = std::move(p);
  }

  const TaskContext& host_;
  const GpuEvalSetup& setup_;
  const std::string& source_;
  const std::string& file_name_;
  const EvalOptions& opt_;
  const Walls walls_ = machine_walls();
  Evaluation e_;
  Clock::time_point start_ = Clock::now();
  std::vector<HostSet> inputs_, references_;
  HostSet timing_inputs_;
  const char* step_ = "";  // the step under way, for an interrupted evaluation
  std::unique_ptr<GpuDevice> candidate_;
  DeviceSet candidate_buffers_;
};

}  // namespace

void partner_against(GpuEvalSetup& setup, const EvalOptions& options) {
  setup.partner_name = "against " + options.against_name;
  setup.partner_artifact = [&setup, &options]() -> Result<std::filesystem::path> {
    toolchain::CompileRequest req{
        options.against_role, options.against_source, options.against_name, setup.header, {}};
    auto c = setup.compiler->compile(req);
    if (!c.ok) return Error{"the --against kernel does not compile:\n" + c.log.substr(0, 2000)};
    return c.artifact;
  };
}

Evaluation evaluate_gpu(const TaskContext& host, const GpuEvalSetup& setup,
                        const std::string& source, const std::string& file_name,
                        const EvalOptions& options) {
  return GpuEvaluationRun(host, setup, source, file_name, options).run();
}

}  // namespace kforge::eval
