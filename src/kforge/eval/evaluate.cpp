// The orchestrator. Read top to bottom, it is the evaluation contract:
//   compile (in the background) ‖ prepare the partner, the secret inputs and their references,
//   and start the runner → link check → load in the sandbox → check → time → roofline.
#include "kforge/eval/evaluate.h"

#include <fmt/format.h>
#include <unistd.h>

#include <fstream>
#include <future>
#include <random>
#include <thread>

#include "kforge/core/hash.h"
#include "kforge/eval/dump.h"
#include "kforge/eval/runner_process.h"
#include "kforge/eval/secret_seeds.h"
#include "kforge/eval/steps.h"
#include "kforge/runner/job.h"

namespace kforge::eval {
namespace {

using Clock = std::chrono::steady_clock;

// The 1-minute load average (0 when unknown).
double load_average() {
  std::ifstream in("/proc/loadavg");
  double load = 0;
  in >> load;
  return load;
}

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }
Clock::time_point after(double seconds) { return Clock::now() + std::chrono::milliseconds(static_cast<long>(seconds * 1000)); }

bool is_trusted(toolchain::Role role) { return role != toolchain::Role::candidate; }

// A private folder for this evaluation: the runner may read it (and nothing of .kforge else).
struct Scratch {
  std::filesystem::path dir;
  explicit Scratch(const std::filesystem::path& state_dir) {
    std::random_device rd;
    dir = state_dir / "tmp" / fmt::format("eval-{}-{:08x}", ::getpid(), rd());
    std::filesystem::create_directories(dir);
  }
  ~Scratch() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  std::filesystem::path place(const std::filesystem::path& artifact, const char* name) const {
    auto p = dir / name;
    std::filesystem::copy_file(artifact, p, std::filesystem::copy_options::overwrite_existing);
    return p;
  }
};

Evaluation finish(Evaluation e, const Judgement& j, Clock::time_point start) {
  e.verdict = j.verdict;
  e.reason = j.reason;
  e.phases.total_s = since(start);
  return e;
}

toolchain::CompileResult compile_source(const TaskContext& ctx, const std::string& source, const std::string& file_name, toolchain::Role role,
                                        const std::vector<std::string>& flags) {
  toolchain::CompileRequest req{role, source, file_name, ctx.header(), flags};
  return ctx.compiler().compile(req);
}

std::size_t memory_budget(const core::ResolvedTask& task, std::size_t requested) {
  if (requested) return requested;
  std::size_t buffers = task.input_bytes() + task.output_bytes();
  return std::max<std::size_t>(2ull << 30, 4 * buffers);
}

// Secret inputs and their reference outputs, one pair per check set.
Result<std::pair<std::vector<SharedSet>, std::vector<SharedSet>>> prepare_check_sets(const TaskContext& ctx, int count) {
  auto seeds = secret_seeds(ctx.state_dir(), ctx.spec().id, count);
  if (!seeds) return seeds.error();
  std::vector<SharedSet> inputs, references;
  for (auto seed : *seeds) {
    auto in = ctx.make_inputs(seed);
    if (!in) return in.error();
    auto ref = ctx.reference_outputs(*in, seed);
    if (!ref) return ref.error();
    inputs.push_back(std::move(*in));
    references.push_back(std::move(*ref));
  }
  return std::make_pair(std::move(inputs), std::move(references));
}

Profile build_profile(const TaskContext& ctx, const std::string& source, const std::string& file_name, const EvalOptions& opt,
                      const Evaluation& e, const nlohmann::json& profiled) {
  Profile p;
  p.samples = profiled.value("samples", 0L);
  p.calls = profiled.value("calls", 0);
  for (const auto& [name, count] : profiled.at("objects").items())
    p.object_share[name] = p.samples ? count.get<double>() / static_cast<double>(p.samples) : 0;
  p.hot_lines = hot_lines_from_samples(profiled.at("kernel_offsets"), p.samples, e.compile.artifact.string(), file_name, source);
  toolchain::CompileRequest req{opt.role, source, file_name, ctx.header(), opt.extra_flags};
  p.vectorization = toolchain::parse_vector_remarks(ctx.compiler().vectorization_output(req), file_name, source);
  if (opt.machine && e.candidate) fill_roofline(p, ctx.task(), e.candidate->median_ms / 1e3, *opt.machine, e.threads);
  return p;
}

}  // namespace

Evaluation evaluate(const TaskContext& ctx, const std::string& source, const std::string& file_name, const EvalOptions& opt) {
  const auto start = Clock::now();
  auto say = [&](std::string_view m) {
    if (opt.progress) opt.progress(m);
  };
  const core::ResolvedTask& task = ctx.task();
  Evaluation e;
  e.task_id = ctx.spec().id;
  e.size = task.size;
  e.role = std::string(toolchain::role_name(opt.role));
  e.threads = opt.threads > 0 ? opt.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const bool trusted = is_trusted(opt.role);
  const bool against = !opt.against_source.empty();

  // 1. Compile the kernel in the background while everything else is prepared.
  say("compiling");
  // Compiling, preparing references and checking share the machine (held from here to the
  // timing); timing, below, takes it alone. One hold for the whole stretch: no nested waits.
  auto shared = opt.machine_lock ? opt.machine_lock->share() : std::shared_lock<std::shared_mutex>();
  auto compiling = std::async(std::launch::async, [&] { return compile_source(ctx, source, file_name, opt.role, opt.extra_flags); });
  std::optional<toolchain::CompileResult> against_compile;
  if (against && opt.time) against_compile = compile_source(ctx, opt.against_source, opt.against_name, opt.against_role, {});

  // 2. The partner (the trusted baseline), the generator, and the runner's setup.
  Scratch scratch(ctx.state_dir());
  runner::SandboxSetup setup;
  setup.inputs = runner::tensor_infos(task.inputs);
  setup.outputs = runner::tensor_infos(task.outputs);
  setup.threads = e.threads;
  setup.timing_seed = std::random_device{}() * 0x100000001ULL ^ std::random_device{}();
  setup.memory_bytes = memory_budget(task, opt.memory_bytes);
  setup.cpu_seconds = static_cast<long>((opt.call_timeout_s * opt.check_sets + opt.time_budget_s * 4 + 120) * e.threads);
  setup.rtol = task.rtol;
  setup.atol = task.atol;
  setup.perturb = opt.perturb;
  setup.readable = {scratch.dir.string()};
  if (opt.time && !against) {
    bool baseline = opt.partner == EvalOptions::Partner::baseline;
    say(baseline ? "building the baseline" : "building the reference");
    auto partner = baseline ? ctx.baseline_library() : ctx.reference_library();
    if (!partner) return finish(std::move(e), {Verdict::runtime_error, partner.error().message}, start);
    setup.partner = scratch.place(*partner, "partner.so").string();
    e.partner = baseline ? "baseline" : "reference";
  } else if (against && opt.time) {
    e.partner = "against " + opt.against_name;
    if (is_trusted(opt.against_role)) {  // a trusted partner is loaded like the baseline, before the sandbox
      if (auto j = judge_compile(*against_compile)) return finish(std::move(e), {j->verdict, "the --against kernel: " + j->reason}, start);
      if (auto j = judge_link(*against_compile, opt.against_role, opt.allow_libs))
        return finish(std::move(e), {j->verdict, "the --against kernel: " + j->reason}, start);
      setup.partner = scratch.place(against_compile->artifact, "against.so").string();
      against_compile.reset();
    }
  }
  auto generator = ctx.generator_library();
  if (!generator) return finish(std::move(e), {Verdict::runtime_error, generator.error().message}, start);
  if (!generator->empty()) setup.generator = scratch.place(*generator, "generate.so").string();

  if (trusted) {  // a trusted kernel is loaded during setup, so it must be compiled first
    e.compile = compiling.get();
    if (auto j = judge_compile(e.compile)) return finish(std::move(e), *j, start);
    setup.trusted_candidate = scratch.place(e.compile.artifact, "candidate.so").string();
  }
  auto proc = RunnerProcess::start(e.threads, scratch.dir);
  if (!proc) return finish(std::move(e), {Verdict::runtime_error, proc.error().message}, start);
  proc->send(runner::to_json(setup));

  // 3. Secret check inputs and their reference outputs (cached), while the runner starts.
  say("preparing check inputs");
  auto prepare_start = Clock::now();
  auto sets = prepare_check_sets(ctx, opt.check_sets);
  if (!sets) return finish(std::move(e), {Verdict::runtime_error, sets.error().message}, start);
  auto& [check_inputs, references] = *sets;
  e.phases.prepare_s = since(prepare_start);

  // 4. The compiler's and the link check's verdicts.
  if (!trusted) {
    e.compile = compiling.get();
    if (auto j = judge_compile(e.compile)) return finish(std::move(e), *j, start);
  }
  e.phases.compile_s = e.compile.seconds;
  if (auto j = judge_link(e.compile, opt.role, opt.allow_libs)) return finish(std::move(e), *j, start);
  runner::LoadRequest load{trusted ? "" : scratch.place(e.compile.artifact, "candidate.so").string(), "", opt.check_sets};
  if (against_compile) {
    if (auto j = judge_compile(*against_compile)) return finish(std::move(e), {j->verdict, "the --against kernel: " + j->reason}, start);
    if (auto j = judge_link(*against_compile, opt.against_role, opt.allow_libs))
      return finish(std::move(e), {j->verdict, "the --against kernel: " + j->reason}, start);
    load.untrusted_partner = scratch.place(against_compile->artifact, "against.so").string();
  }

  // 5. Wait for the runner to be ready, then load the kernel into the sandbox and check it.
  auto silence = [&](const std::string& why, const std::string& phase, double timeout) {
    proc->kill();
    auto exit = proc->wait(after(5));
    return finish(std::move(e), judge_runner_silence(why, exit, phase, timeout, proc->output()), start);
  };
  auto ready = proc->receive(after(180));
  if (!ready) return silence(ready.error().message, "the runner's setup", 180);
  if (ready->body.value("op", "") != "ready") return finish(std::move(e), judge_runner_message(ready->body), start);
  e.landlock_abi = ready->body.value("landlock_abi", 0);

  auto results = SharedSet::create(task.outputs, check_inputs.size() * (against_compile ? 2 : 1), "kforge-results");
  if (!results) return finish(std::move(e), {Verdict::runtime_error, results.error().message}, start);
  std::vector<int> fds;
  for (const auto& s : check_inputs) fds.push_back(s.fd());
  fds.push_back(results->fd());
  say(fmt::format("checking on {} secret input sets", check_inputs.size()));
  auto check_start = Clock::now();
  proc->send(runner::to_json(load), fds);
  double check_timeout = opt.call_timeout_s * opt.check_sets * (against_compile ? 2 : 1) + 5;
  auto checked = proc->receive(after(check_timeout));
  e.phases.check_s = since(check_start);
  if (!checked) return silence(checked.error().message, "the check", check_timeout);
  if (checked->body.value("op", "") != "checked") return finish(std::move(e), judge_runner_message(checked->body), start);
  if (!opt.dump_dir.empty())
    if (auto st = dump_check_sets(opt.dump_dir, task, check_inputs, *results, references); !st)
      return finish(std::move(e), {Verdict::runtime_error, "--dump: " + st.error().message}, start);
  if (auto j = judge_check(checked->body, *results, references, task, e)) {
    e.kernel_output = proc->output();
    return finish(std::move(e), *j, start);
  }

  // 6. Time it, paired with the partner, and cross-check the runner's clock.
  if (shared.owns_lock()) shared.unlock();
  std::unique_lock<std::shared_mutex> measuring;
  if (opt.time && opt.machine_lock) {
    double wait_start = monotonic_seconds();
    measuring = opt.machine_lock->measure();
    e.lock_wait_s = monotonic_seconds() - wait_start;
  }
  e.timing_start = monotonic_seconds();
  if (opt.time) {
    say(fmt::format("timing against the {}", e.partner));
    runner::TimeRequest request{opt.time_budget_s, opt.warmup_s, opt.min_pairs, opt.max_pairs};
    double slowest_ms = 0;
    for (double ms : e.check_ms) slowest_ms = std::max(slowest_ms, ms);
    // The runner may extend the budget up to threefold to pin the median down (timing_phase.cpp).
    double time_timeout = opt.warmup_s + opt.time_budget_s * 4 + (opt.min_pairs + 4) * slowest_ms * 6 / 1e3 + 60;
    e.load_average = load_average();
    // This evaluation's own threads are part of the average: "busy" means clearly more than them.
    e.machine_busy = e.load_average > static_cast<double>(std::thread::hardware_concurrency()) + 1.0;
    auto time_start = Clock::now();
    proc->send(runner::to_json(request));
    auto timed = proc->receive(after(time_timeout));
    e.phases.time_s = since(time_start);
    if (!timed) return silence(timed.error().message, "timing", time_timeout);
    if (timed->body.value("op", "") != "timed") return finish(std::move(e), judge_runner_message(timed->body), start);
    if (auto j = judge_timing(timed->body, e.phases.time_s, task, e)) return finish(std::move(e), *j, start);
    if (opt.machine) e.roofline = roofline_fraction(task.flops, task.bytes, e.candidate->median_ms / 1e3, *opt.machine, e.threads);
  }

  // 7. Profile: sampled hot lines, the compiler's vectorization remarks, the roofline position.
  if (opt.time && opt.profile_seconds > 0) {
    say("profiling");
    proc->send({{"op", "profile"}, {"seconds", opt.profile_seconds}});
    auto profiled = proc->receive(after(opt.profile_seconds * 4 + 30));
    if (!profiled) return silence(profiled.error().message, "profiling", opt.profile_seconds * 4 + 30);
    if (profiled->body.value("op", "") != "profiled") return finish(std::move(e), judge_runner_message(profiled->body), start);
    e.profile = build_profile(ctx, source, file_name, opt, e, profiled->body);
  }
  e.timing_end = monotonic_seconds();
  if (measuring.owns_lock()) {
    opt.machine_lock->record({e.timing_start, e.timing_end});
    measuring.unlock();
  }
  proc->send({{"op", "stop"}});
  proc->wait(after(5));
  e.kernel_output = proc->output();
  std::string reason = fmt::format("correct on {} secret input sets", check_inputs.size());
  if (e.speedup) reason += fmt::format("; {:.2f}x the {} (median of {} paired runs)", e.speedup->median, e.partner, e.candidate->samples);
  return finish(std::move(e), {Verdict::correct, reason}, start);
}

}  // namespace kforge::eval
