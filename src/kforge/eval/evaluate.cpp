// The orchestrator. Read top to bottom, it is the evaluation contract:
//   compile (in the background) ‖ prepare the secret inputs, their references and the timing
//   inputs → link check → start the candidate's process and the partner's, each alone with its
//   own library → check → time, paired, from this process → profile.
// Nothing a kernel process says decides a verdict or a time: the calls are timed on this
// process's clock, the outputs copied and compared here, the CPU of each process read from here.
#include "kforge/eval/evaluate.h"

#include <fmt/format.h>
#include <unistd.h>

#include <future>
#include <random>
#include <thread>

#include "kforge/eval/dump.h"
#include "kforge/eval/secret_seeds.h"
#include "kforge/eval/steps.h"
#include "kforge/toolchain/elf_symbols.h"

namespace kforge::eval {
namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

bool is_trusted(toolchain::Role role) { return role != toolchain::Role::candidate; }

// A private folder for this evaluation, with one subfolder per kernel process: each process may
// read its own subfolder (its library) and nothing else of kforge's.
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
  std::filesystem::path place(const std::filesystem::path& artifact, const char* folder) const {
    auto d = dir / folder;
    std::filesystem::create_directories(d);
    auto p = d / "kernel.so";
    std::filesystem::copy_file(artifact, p, std::filesystem::copy_options::overwrite_existing);
    return p;
  }
};

// Load samples for an evaluation: a few before its timing, then one between pairs now and then
// (both kernel processes idle, so every running thread of theirs or of kforge is its own).
class LoadSampler {
 public:
  LoadSampler(Evaluation& e, std::vector<pid_t> watched, double budget_s)
      : e_(e), watched_(std::move(watched)), interval_s_(std::max(0.25, 3 * budget_s / 32)) {
    std::erase(watched_, -1);
    e_.load_samples = probe_.sample_for(0.1, 0.05, watched_);
    next_ = monotonic_seconds() + interval_s_;
  }
  void between_pairs() {
    if (monotonic_seconds() < next_) return;
    e_.load_samples.push_back(probe_.sample(watched_));
    next_ = monotonic_seconds() + interval_s_;
  }

 private:
  Evaluation& e_;
  LoadProbe probe_;
  std::vector<pid_t> watched_;
  double interval_s_, next_ = 0;
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
  auto number = [&](const char* key) {
    auto it = profiled.find(key);
    return it != profiled.end() && it->is_number() ? it->get<double>() : 0.0;
  };
  p.samples = static_cast<long>(number("samples"));
  p.calls = static_cast<int>(number("calls"));
  if (auto it = profiled.find("objects"); it != profiled.end() && it->is_object())
    for (const auto& [name, count] : it->items())
      if (count.is_number()) p.object_share[name] = p.samples ? count.get<double>() / static_cast<double>(p.samples) : 0;
  auto offsets = profiled.find("kernel_offsets");
  if (offsets != profiled.end() && offsets->is_array())
    p.hot_lines = hot_lines_from_samples(*offsets, p.samples, e.compile.artifact.string(), file_name, source);
  toolchain::CompileRequest req{opt.role, source, file_name, ctx.header(), opt.extra_flags};
  p.vectorization = toolchain::parse_vector_remarks(ctx.compiler().vectorization_output(req), file_name, source);
  if (opt.machine && e.candidate) fill_roofline(p, ctx.task(), e.candidate->median_ms / 1e3, *opt.machine, e.threads);
  return p;
}

// The libraries an untrusted kernel needs, loaded into its process before the sandbox closes.
std::vector<std::string> needed_libraries(const std::filesystem::path& library) {
  auto elf = toolchain::read_elf_dynamic(library);
  return elf ? elf->needed : std::vector<std::string>{};
}

// What a kernel process of this evaluation gets, apart from its library and its input sets.
KernelProcessSpec process_spec(const core::ResolvedTask& task, std::vector<SharedSet>& outputs, const Evaluation& e, const EvalOptions& opt) {
  KernelProcessSpec s;
  s.task = &task;
  s.threads = e.threads;
  for (auto& o : outputs) s.output_sets.push_back(&o);
  s.memory_bytes = memory_budget(task, opt.memory_bytes);
  s.cpu_seconds = static_cast<long>((opt.call_timeout_s * opt.check_sets + opt.time_budget_s * 4 + 120) * e.threads);
  return s;
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
  const bool against = !opt.against_source.empty();

  // 1. Compile the kernel (and the --against kernel) in the background.
  say("compiling");
  // Compiling, preparing references and checking share the machine (held from here to the
  // timing); timing, below, takes it alone. One hold for the whole stretch: no nested waits.
  auto shared = opt.machine_lock ? opt.machine_lock->share() : MachineLock::Shared();
  auto compiling = std::async(std::launch::async, [&] { return compile_source(ctx, source, file_name, opt.role, opt.extra_flags); });
  std::future<toolchain::CompileResult> against_compiling;
  if (against)
    against_compiling = std::async(std::launch::async, [&] { return compile_source(ctx, opt.against_source, opt.against_name, opt.against_role, {}); });

  // 2. The partner's library: the trusted baseline or reference (an --against kernel is compiled above).
  Scratch scratch(ctx.state_dir());
  std::filesystem::path partner_library;
  bool partner_trusted = true;
  if (opt.time && !against) {
    bool baseline = opt.partner == EvalOptions::Partner::baseline;
    say(baseline ? "building the baseline (the first time in a cache: about a minute)" : "building the reference");
    auto partner_start = Clock::now();
    auto partner = baseline ? ctx.baseline_library() : ctx.reference_library();
    e.phases.partner_s = since(partner_start);
    if (!partner) return finish(std::move(e), {Verdict::runtime_error, partner.error().message}, start);
    partner_library = scratch.place(*partner, "partner");
    e.partner = baseline ? "baseline" : "reference";
  }

  // 3. Secret check inputs and their reference outputs (cached), and the timing inputs.
  say("preparing check inputs");
  auto prepare_start = Clock::now();
  auto sets = prepare_check_sets(ctx, opt.check_sets);
  if (!sets) return finish(std::move(e), {Verdict::runtime_error, sets.error().message}, start);
  auto& [check_inputs, references] = *sets;
  std::optional<SharedSet> timing_set;
  if (auto t = ctx.make_timing_inputs(std::random_device{}() * 0x100000001ULL ^ std::random_device{}()); t) timing_set.emplace(std::move(*t));
  else return finish(std::move(e), {Verdict::runtime_error, t.error().message}, start);
  e.phases.prepare_s = since(prepare_start);
  std::vector<const SharedSet*> all_sets = {&*timing_set};
  for (const auto& s : check_inputs) all_sets.push_back(&s);
  std::vector<SharedSet> output_sets;
  for (int k = 0; k < 2; ++k) {
    auto o = SharedSet::create(task.outputs, 1, "kforge-outputs");
    if (!o) return finish(std::move(e), {Verdict::runtime_error, o.error().message}, start);
    output_sets.push_back(std::move(*o));
  }

  // 4. The compiler's and the link check's verdicts.
  e.compile = compiling.get();
  e.phases.compile_s = e.compile.seconds;
  if (auto j = judge_compile(e.compile)) return finish(std::move(e), *j, start);
  if (auto j = judge_link(e.compile, opt.role, opt.allow_libs)) return finish(std::move(e), *j, start);
  if (against) {
    auto against_compile = against_compiling.get();
    if (auto j = judge_compile(against_compile)) return finish(std::move(e), {j->verdict, "the --against kernel: " + j->reason}, start);
    if (auto j = judge_link(against_compile, opt.against_role, opt.allow_libs))
      return finish(std::move(e), {j->verdict, "the --against kernel: " + j->reason}, start);
    partner_trusted = is_trusted(opt.against_role);
    if (opt.time || !partner_trusted) partner_library = scratch.place(against_compile.artifact, "against");
    e.partner = "against " + opt.against_name;
  }

  // 5. One process per kernel, each alone with its own library.
  KernelProcessSpec cand_spec = process_spec(task, output_sets, e, opt);
  cand_spec.who = "the kernel";
  cand_spec.trusted = is_trusted(opt.role);
  cand_spec.library = scratch.place(e.compile.artifact, "candidate");
  cand_spec.folder = cand_spec.library.parent_path();
  if (!cand_spec.trusted) cand_spec.preload = needed_libraries(cand_spec.library);
  cand_spec.input_sets = all_sets;
  auto candidate = KernelProcess::start(cand_spec);
  if (!candidate) return finish(std::move(e), {Verdict::runtime_error, candidate.error().message}, start);
  std::optional<KernelProcess> partner;
  if (!partner_library.empty()) {
    KernelProcessSpec p = process_spec(task, output_sets, e, opt);
    p.who = against ? "the --against kernel" : "the " + e.partner;
    p.trusted = partner_trusted;
    p.library = partner_library;
    p.folder = partner_library.parent_path();
    if (!p.trusted) p.preload = needed_libraries(p.library);
    // A trusted partner is only timed; an untrusted one is checked like the candidate.
    p.input_sets = partner_trusted ? std::vector<const SharedSet*>{&*timing_set} : all_sets;
    auto started = KernelProcess::start(p);
    if (!started) return finish(std::move(e), {Verdict::runtime_error, started.error().message}, start);
    partner.emplace(std::move(*started));
  }
  if (auto j = candidate->wait_ready(180)) return finish(std::move(e), *j, start);
  e.landlock_abi = candidate->landlock_abi();
  if (partner)
    if (auto j = partner->wait_ready(180)) return finish(std::move(e), *j, start);

  // 6. The check, on every secret input set.
  say(fmt::format("checking on {} secret input sets", check_inputs.size()));
  auto check_start = Clock::now();
  std::vector<OutputSnapshot> results, partner_results;
  auto check_failed = run_check_calls(*candidate, 0, check_inputs.size(), opt.call_timeout_s, results, &e.check_ms);
  e.phases.check_s = since(check_start);
  e.kernel_output = candidate->printed();
  if (!check_failed) check_failed = candidate->channel_untouched("the check");
  if (check_failed) return finish(std::move(e), *check_failed, start);
  if (!opt.dump_dir.empty())
    if (auto st = dump_check_sets(opt.dump_dir, task, check_inputs, results, references); !st)
      return finish(std::move(e), {Verdict::runtime_error, "--dump: " + st.error().message}, start);
  if (auto j = judge_check(results, references, task, "the kernel", e)) return finish(std::move(e), *j, start);
  if (partner && !partner->trusted()) {
    if (auto j = run_check_calls(*partner, 1, check_inputs.size(), opt.call_timeout_s, partner_results, nullptr))
      return finish(std::move(e), *j, start);
    if (auto j = judge_check(partner_results, references, task, "the --against kernel", e)) return finish(std::move(e), *j, start);
  }

  // 7. Time it, paired with the partner, with the machine to itself (this process's other
  // evaluations and other kforge processes wait), sampling the load outside kforge before and
  // between pairs.
  if (shared.owns_lock()) shared.unlock();
  MachineLock::Exclusive measuring;
  if (opt.time && opt.machine_lock) {
    double wait_start = monotonic_seconds();
    measuring = opt.machine_lock->measure();
    e.lock_wait_s = monotonic_seconds() - wait_start;
  }
  // With the machine held (no other kforge process starts a compile), give outside work a bounded
  // time to finish before timing; the load verdict below still judges the timing itself.
  if (opt.time && opt.quiet_waiter) e.quiet_wait = opt.quiet_waiter->wait(e.threads, {candidate->pid(), partner ? partner->pid() : -1}, opt.progress);
  e.timing_start = monotonic_seconds();
  if (opt.time) {
    say(e.partner.empty() ? std::string("timing") : fmt::format("timing against the {}", e.partner));
    LoadSampler load(e, {candidate->pid(), partner ? partner->pid() : -1}, opt.time_budget_s);
    e.call_overhead_ms = candidate->round_trip_ms(21);
    TimingInputs inputs(*timing_set, task);
    PairedTimingRequest request{opt.time_budget_s, opt.warmup_s, opt.min_pairs, opt.max_pairs, opt.perturb, opt.call_timeout_s};
    request.between_pairs = [&load] { load.between_pairs(); };
    auto time_start = Clock::now();
    auto timed = time_paired(*candidate, partner ? &*partner : nullptr, inputs, task, request);
    e.phases.time_s = since(time_start);
    judge_machine_load(measuring.contention, e);
    if (!timed.failure) timed.failure = candidate->channel_untouched("timing");
    if (!timed.failure && partner && !partner->trusted()) timed.failure = partner->channel_untouched("timing");
    if (auto j = judge_timing(timed, task, e)) {
      e.kernel_output = candidate->printed();
      return finish(std::move(e), *j, start);
    }
    if (opt.machine) rate_against_peaks(task, *opt.machine, e);
    if (opt.machine) pace_the_partner(*opt.machine, e);
  }

  // 8. Profile: sampled hot lines, the compiler's vectorization remarks, the roofline position.
  if (opt.time && opt.profile_seconds > 0) {
    say("profiling");
    auto profiled = candidate->profile(opt.profile_seconds, opt.profile_seconds * 4 + 30);
    if (!profiled) return finish(std::move(e), {Verdict::runtime_error, profiled.error().message}, start);
    e.profile = build_profile(ctx, source, file_name, opt, e, *profiled);
  }
  e.timing_end = monotonic_seconds();
  if (measuring.owns_lock()) {
    opt.machine_lock->record({e.timing_start, e.timing_end});
    measuring.unlock();
  }
  candidate->stop();
  if (partner) partner->stop();
  e.kernel_output = candidate->printed();
  std::string reason = fmt::format("correct on {} secret input sets", check_inputs.size());
  if (e.speedup) reason += fmt::format("; {:.2f}x the {} (median of {} paired runs)", e.speedup->median, e.partner, e.candidate->samples);
  return finish(std::move(e), {Verdict::correct, reason}, start);
}

}  // namespace kforge::eval
