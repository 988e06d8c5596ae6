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

#include "kforge/core/clock.h"
#include "kforge/core/dtype_tolerance.h"
#include "kforge/core/fs.h"
#include "kforge/core/task_python.h"
#include "kforge/eval/cpu_choice.h"
#include "kforge/eval/dump.h"
#include "kforge/eval/executor.h"
#include "kforge/eval/machine.h"
#include "kforge/eval/runner_failure.h"
#include "kforge/eval/secret_seeds.h"
#include "kforge/eval/steps.h"
#include "kforge/eval/walls.h"
#include "kforge/toolchain/cpp_compiler.h"
#include "kforge/toolchain/elf_symbols.h"

namespace kforge::eval {
namespace {

using core::Clock;

// Waited longer than this for another process's timing, the machine's load is probed afresh.
constexpr double kStaleEarlyLoadS = 0.05;

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
// (both kernel processes stopped, so every running thread of theirs or of kforge is its own).
// `taken`: the quiet wait's last probe, just before; without it, a tenth of a second of samples.
class LoadSampler {
 public:
  LoadSampler(Evaluation& e, std::vector<pid_t> watched, double budget_s,
              std::vector<LoadSample> taken)
      : e_(e), watched_(std::move(watched)), interval_s_(std::max(0.25, 3 * budget_s / 32)) {
    std::erase(watched_, -1);
    if (taken.empty()) {
      e_.load_samples = probe_.sample_for(0.1, 0.05, watched_);
    } else {
      e_.load_samples = std::move(taken);
      probe_.sample(watched_);  // the start of the first interval between pairs
    }
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

toolchain::CompileResult compile_source(const TaskContext& ctx, const EvalOptions& opt,
                                        const std::string& source, const std::string& file_name,
                                        toolchain::Role role,
                                        const std::vector<std::string>& flags) {
  toolchain::CompileRequest req{role, source, file_name, ctx.header(), flags};
  if (opt.kernel_compiler) {
    req.task_header = core::task_python_module(core::at_dtype(ctx.task(), opt.dtype), opt.dtype);
    return opt.kernel_compiler->compile(req);
  }
  return ctx.compiler().compile(req);
}

std::size_t memory_budget(const core::ResolvedTask& task, std::size_t requested) {
  if (requested) return requested;
  std::size_t buffers = task.input_bytes() + task.output_bytes();
  return std::max<std::size_t>(2ull << 30, 4 * buffers);
}

// Secret inputs and their reference outputs, one pair per check set.
Result<std::pair<std::vector<SharedSet>, std::vector<SharedSet>>> prepare_check_sets(
    const TaskContext& ctx, int count, const std::vector<std::uint64_t>& given) {
  // A cluster job gets this evaluation's draws from the driver; everyone else reads the pool.
  auto seeds = given.empty() ? secret_seeds(ctx.state_dir(), ctx.spec().id, count)
                             : Result<std::vector<std::uint64_t>>(given);
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

Profile build_profile(const TaskContext& ctx, const std::string& source,
                      const std::string& file_name, const EvalOptions& opt, const Evaluation& e,
                      const nlohmann::json& profiled) {
  Profile p;
  auto number = [&](const char* key) {
    auto it = profiled.find(key);
    return it != profiled.end() && it->is_number() ? it->get<double>() : 0.0;
  };
  p.samples = static_cast<long>(number("samples"));
  p.calls = static_cast<int>(number("calls"));
  if (auto it = profiled.find("objects"); it != profiled.end() && it->is_object())
    for (const auto& [name, count] : it->items())
      if (count.is_number())
        p.object_share[name] = p.samples ? count.get<double>() / static_cast<double>(p.samples) : 0;
  auto offsets = profiled.find("kernel_offsets");
  if (offsets != profiled.end() && offsets->is_array()) {
    p.hot_lines =
        hot_lines_from_samples(*offsets, p.samples, e.compile.artifact.string(), file_name, source);
    add_hot_instructions(p, *offsets, e.compile.artifact.string());
  }
  toolchain::CompileRequest req{opt.role, source, file_name, ctx.header(), opt.extra_flags};
  p.vectorization =
      toolchain::parse_vector_remarks(ctx.compiler().vectorization_output(req), file_name, source);
  if (opt.machine && e.candidate)
    fill_roofline(p, ctx.task(), e.candidate->median_ms / 1e3, *opt.machine, e.threads);
  return p;
}

// The libraries an untrusted kernel needs, loaded into its process before the sandbox closes.
std::vector<std::string> needed_libraries(const std::filesystem::path& library) {
  auto elf = toolchain::read_elf_dynamic(library);
  return elf ? elf->needed : std::vector<std::string>{};
}

// What a kernel process of this evaluation gets, apart from its library and its input sets.
KernelProcessSpec process_spec(const core::ResolvedTask& task, std::vector<SharedSet>& outputs,
                               const Evaluation& e, const EvalOptions& opt) {
  KernelProcessSpec s;
  s.task = &task;
  s.threads = e.threads;
  s.cpus = e.cpus;
  s.timed = opt.time;
  s.cancel = opt.cancel;
  for (auto& o : outputs) s.output_sets.push_back(&o);
  s.memory_bytes = memory_budget(task, opt.memory_bytes);
  s.cpu_seconds = static_cast<long>(
      (opt.call_timeout_s * opt.check_sets + opt.time_budget_s * 4 + 120) * e.threads);
  return s;
}

// One evaluation's state, and its steps in order. Each step returns a judgement only when it ends
// the evaluation; run() goes through them, saying each step's name as it starts and ending at the
// first judgement, so no step repeats the "stop here" logic.
class EvaluationRun {
 public:
  EvaluationRun(const TaskContext& ctx, const std::string& source, const std::string& file_name,
                const EvalOptions& opt)
      : ctx_(ctx),
        task_(core::at_dtype(ctx.task(), opt.dtype)),
        source_(source),
        file_name_(file_name),
        opt_(opt),
        against_(!opt.against_source.empty()) {
    e_.task_id = ctx.spec().id;
    e_.size = task_.size;
    e_.role = std::string(toolchain::role_name(opt.role));
    e_.dtype = opt.dtype;
    e_.walls = walls_.describe();
    e_.threads = opt.threads > 0
                     ? opt.threads
                     : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  }

  Evaluation run() {
    using Step = std::optional<Judgement> (EvaluationRun::*)();
    struct NamedStep {
      Step step;
      const char* name;  // for "interrupted (Ctrl-C) while …"
    };
    static constexpr NamedStep kSteps[] = {
        // 1. the kernel (and the --against kernel), in the background
        {&EvaluationRun::start_compiles, "compiling"},
        // 2. the trusted baseline or reference to time against
        {&EvaluationRun::build_partner, "building the partner"},
        // 3. secret check inputs, their reference outputs, the timing inputs
        {&EvaluationRun::prepare_inputs, "preparing the check inputs"},
        // 4. the compiler's and the link check's verdicts, for each side
        {&EvaluationRun::judge_compiles, "compiling"},
        // 5. one process per kernel, each alone with its own library
        {&EvaluationRun::start_processes, "loading the kernels"},
        // 6. every secret input set, on each side that is not trusted
        {&EvaluationRun::check, "checking"},
        // 7. paired with the partner, the machine to itself
        {&EvaluationRun::time, "timing"},
        // 8. hot lines, vectorization remarks, roofline position
        {&EvaluationRun::profile, "profiling"},
    };
    // Untrusted code (and the compiler reading it) runs only behind the walls (walls.h).
    if (untrusted_code())
      if (auto j = refuse_untrusted(walls_)) return finish(*j);
    for (const auto& [step, name] : kSteps) {
      step_ = name;
      if (cancelled()) return finish({Verdict::interrupted, ""});
      if (auto j = (this->*step)()) return finish(*j);
    }
    return finish(correct());
  }

 private:
  void say(std::string_view m) const {
    if (opt_.progress) opt_.progress(m);
  }

  bool cancelled() const { return opt_.cancel && opt_.cancel->load(); }

  // A step that failed because Ctrl-C killed its process (or the compiler) is no verdict on the
  // kernel: whatever it read, the evaluation says it was interrupted, and where.
  Evaluation finish(Judgement j) {
    j = unless_interrupted(std::move(j), opt_.cancel, step_);
    e_.verdict = j.verdict;
    e_.reason = j.reason;
    e_.phases.total_s = core::seconds_since(start_);
    return std::move(e_);
  }

  std::optional<Judgement> start_compiles() {
    say("compiling");
    // Compiling, preparing references and checking share the machine (held from here to the
    // timing); timing takes it alone. One hold for the whole stretch: no nested waits.
    if (opt_.machine_lock) shared_ = opt_.machine_lock->share();
    compiling_ = std::async(std::launch::async, [this] {
      return compile_source(ctx_, opt_, source_, file_name_, opt_.role, opt_.extra_flags);
    });
    if (against_)
      against_compiling_ = std::async(std::launch::async, [this] {
        return compile_source(ctx_, opt_, opt_.against_source, opt_.against_name, opt_.against_role,
                              {});
      });
    return std::nullopt;
  }

  // An --against kernel is compiled above and is the partner itself.
  std::optional<Judgement> build_partner() {
    if (!opt_.time || against_) return std::nullopt;
    if (!opt_.peer.empty()) return place_peer();
    bool baseline = opt_.partner == EvalOptions::Partner::baseline;
    // The baseline compiles libtorch code: a minute the first time, nothing once cached.
    say(!baseline                ? "building the reference"
        : ctx_.baseline_cached() ? "baseline: cached"
                                 : "building the baseline (first time: about a minute)");
    auto partner_start = Clock::now();
    auto partner = baseline ? ctx_.baseline_library() : ctx_.reference_library();
    e_.phases.partner_s = core::seconds_since(partner_start);
    if (!partner) return Judgement{Verdict::runtime_error, partner.error().message};
    partner_library_ = scratch_.place(*partner, "partner");
    // The baseline loads libtorch from where it was built against (a Python environment's wheel).
    if (baseline) partner_reads_ = ctx_.compiler().runtime_reads(toolchain::Role::baseline);
    e_.partner = baseline ? "baseline" : "reference";
    // The baseline is libtorch: a speedup over it is worth what its BLAS is worth here. Debian's
    // does its GEMMs with OpenBLAS; a wheel's with MKL, whatever OpenBLAS does on this CPU.
    auto* cpp = dynamic_cast<toolchain::CppCompiler*>(&ctx_.compiler());
    if (baseline && opt_.machine && cpp && cpp->torch() && !cpp->torch()->wheel)
      e_.partner_note = openblas_core_warning(*opt_.machine);
    return std::nullopt;
  }

  // A peer: its port, with this size's kforge_task.py in a scratch folder of its own.
  std::optional<Judgement> place_peer() {
    e_.partner = opt_.peer;
    auto kernel = peer_kernel(ctx_.spec(), opt_.peer);
    if (!kernel) return partner_failure({Verdict::runtime_error, kernel.error().message});
    auto folder = scratch_.dir / "peer";
    std::filesystem::create_directories(folder);
    if (auto st = core::write_atomic(folder / "kforge_task.py",
                                     core::task_python_module(task_, opt_.dtype));
        !st)
      return Judgement{Verdict::runtime_error, st.error().message};
    partner_python_ = std::move(*kernel);
    partner_python_->dtype = opt_.dtype;
    partner_library_ = partner_python_->module;
    partner_folder_ = folder;
    partner_trusted_ = false;  // checked on every secret set, like the candidate
    return std::nullopt;
  }

  Judgement partner_failure(Judgement j) {
    e_.partner_failed = true;
    return j;
  }

  std::optional<Judgement> prepare_inputs() {
    say("preparing check inputs");
    auto prepare_start = Clock::now();
    auto sets = prepare_check_sets(ctx_, opt_.check_sets, opt_.check_seeds);
    if (!sets) return Judgement{Verdict::runtime_error, sets.error().message};
    check_inputs_ = std::move(sets->first);
    references_ = std::move(sets->second);
    auto t =
        ctx_.make_timing_inputs(std::random_device{}() * 0x100000001ULL ^ std::random_device{}());
    if (!t) return Judgement{Verdict::runtime_error, t.error().message};
    timing_set_.emplace(std::move(*t));
    e_.phases.prepare_s = core::seconds_since(prepare_start);
    all_sets_ = {&*timing_set_};
    for (const auto& s : check_inputs_) all_sets_.push_back(&s);
    // Two output sets for each side, never shared: see KernelProcessSpec::output_sets.
    for (auto* sets : {&candidate_outputs_, &partner_outputs_})
      for (int k = 0; k < 2; ++k) {
        auto o = SharedSet::create(task_.outputs, 1, "kforge-outputs");
        if (!o) return Judgement{Verdict::runtime_error, o.error().message};
        sets->push_back(std::move(*o));
      }
    return std::nullopt;
  }

  // The kernel's compile and link check, then the --against kernel's, whose failures say whose.
  std::optional<Judgement> judge_compiles() {
    e_.compile = compiling_.get();
    e_.phases.compile_s = e_.compile.seconds;
    if (auto j = judge_built(e_.compile, opt_.role, "")) return j;
    if (!against_) return std::nullopt;
    auto against_compile = against_compiling_.get();
    if (auto j = judge_built(against_compile, opt_.against_role, "the --against kernel: "))
      return j;
    partner_trusted_ = is_trusted(opt_.against_role);
    if (python_kernel()) {  // another kernel.py: run by the worker like the candidate
      auto placed = place_python_kernel(against_compile.artifact, scratch_.dir / "against");
      if (!placed) return Judgement{Verdict::runtime_error, placed.error().message};
      partner_python_ = std::move(*placed);
      partner_library_ = partner_python_->module;
      partner_folder_ = partner_library_.parent_path();
      partner_trusted_ = false;
    } else if (opt_.time || !partner_trusted_) {
      partner_library_ = scratch_.place(against_compile.artifact, "against");
    }
    e_.partner = "against " + opt_.against_name;
    return std::nullopt;
  }

  std::optional<Judgement> judge_built(const toolchain::CompileResult& compile,
                                       toolchain::Role role, const std::string& whose) const {
    auto j = judge_compile(compile);
    // A Python kernel links nothing: its imports were checked by its compiler, its calls are
    // fenced by the worker.
    if (!j && !python_kernel()) j = judge_link(compile, role, opt_.allow_libs);
    if (j) j->reason = whose + j->reason;
    return j;
  }

  bool python_kernel() const { return !opt_.kernel_framework.empty(); }

  bool untrusted_code() const {
    return !is_trusted(opt_.role) || python_kernel() ||
           (against_ && !is_trusted(opt_.against_role));
  }

  // A checked Python module and this size's kforge_task.py, alone in a folder.
  Result<PythonKernel> place_python_kernel(const std::filesystem::path& artifact,
                                           const std::filesystem::path& folder) {
    std::filesystem::create_directories(folder);
    auto module = folder / "kernel.py";
    std::error_code ec;
    std::filesystem::copy_file(artifact, module, std::filesystem::copy_options::overwrite_existing,
                               ec);
    if (ec)
      return Error{fmt::format("cannot place the kernel in {}: {}", folder.string(), ec.message())};
    if (auto st = core::write_atomic(folder / "kforge_task.py",
                                     core::task_python_module(task_, opt_.dtype));
        !st)
      return st.error();
    return PythonKernel{module, "kernel", opt_.kernel_framework, opt_.dtype};
  }

  std::optional<Judgement> start_processes() {
    // One set of CPUs for both sides: each pins its threads to them alike.
    e_.cpus = opt_.time ? choose_cpus_now(e_.threads) : choose_cpus_now(e_.threads, 0);
    KernelProcessSpec cand = process_spec(task_, candidate_outputs_, e_, opt_);
    cand.who = "the kernel";
    cand.trusted = is_trusted(opt_.role);
    if (python_kernel()) {
      auto placed = place_python_kernel(e_.compile.artifact, scratch_.dir / "candidate");
      if (!placed) return Judgement{Verdict::runtime_error, placed.error().message};
      cand.python = std::move(*placed);
      cand.library = cand.python->module;
      cand.folder = cand.library.parent_path();
      cand.trusted = false;  // a Python kernel runs in the worker's walls whatever its role
      e_.timing_basis = timing_basis_for(jax_platform());
    } else {
      cand.library = scratch_.place(e_.compile.artifact, "candidate");
      cand.folder = cand.library.parent_path();
    }
    if (!cand.trusted && !cand.python) cand.preload = needed_libraries(cand.library);
    // A trusted kernel reads what its role needs as it runs (the baseline: the wheel's libtorch,
    // which its run path names: unreadable, the loader would fall back to the system's).
    if (cand.trusted && !cand.python) cand.readable = ctx_.compiler().runtime_reads(opt_.role);
    cand.input_sets = all_sets_;
    auto candidate = KernelProcess::start(cand);
    if (!candidate) return Judgement{Verdict::runtime_error, candidate.error().message};
    candidate_.emplace(std::move(*candidate));
    if (!partner_library_.empty()) {
      KernelProcessSpec p = process_spec(task_, partner_outputs_, e_, opt_);
      p.who = against_ ? "the --against kernel" : "the " + e_.partner;
      p.trusted = partner_trusted_;
      p.library = partner_library_;
      p.folder = partner_python_ ? partner_folder_ : partner_library_.parent_path();
      if (p.trusted) p.readable = partner_reads_;
      p.python = partner_python_;
      if (!p.trusted && !p.python) p.preload = needed_libraries(p.library);
      if (p.python && !against_) p.who = "the " + opt_.peer + " peer";
      // A trusted partner is only timed; an untrusted one is checked like the candidate.
      p.input_sets = partner_trusted_ ? std::vector<const SharedSet*>{&*timing_set_} : all_sets_;
      auto started = KernelProcess::start(p);
      if (!started) return Judgement{Verdict::runtime_error, started.error().message};
      partner_.emplace(std::move(*started));
    }
    // The quiet wait's first probe (0.3 s), taken while the kernels load (the partner's libtorch
    // alone takes about as long): a quiet machine is then timed without probing again.
    if (waits_for_quiet())
      early_load_ = std::async(std::launch::async, [pids = watched_pids()] {
        LoadProbe probe;
        return probe.sample_for(0.3, 0.05, pids);
      });
    // A Python kernel is traced, compiled and warmed up before it is ready (untimed).
    const double ready_s = opt_.ready_timeout_s > 0 ? opt_.ready_timeout_s
                           : python_kernel()        ? 600
                                                    : 180;
    if (auto j = candidate_->wait_ready(ready_s)) return j;
    e_.landlock_abi = candidate_->landlock_abi();
    // The runner could not raise the file wall the machine offers: judge nothing behind it.
    if (!candidate_->trusted() && e_.landlock_abi == 0)
      if (auto j = refuse_untrusted({0, walls_.without_landlock_allowed})) return j;
    if (python_kernel())
      if (auto it = candidate_->ready_report().find("pallas_mode");
          it != candidate_->ready_report().end() && it->is_string())
        e_.pallas_mode = it->get<std::string>();
    if (!partner_) return std::nullopt;
    if (partner_python_)
      say(fmt::format("starting {} (compiling it: up to minutes)", partner_->who()));
    // A peer compiles (Inductor, XLA) before it is ready: untimed, and given the time it needs.
    if (auto j = partner_->wait_ready(partner_python_ ? 900 : 180)) return partner_failure(*j);
    const auto& ready = partner_->ready_report();
    auto number = [&](const char* key) {
      auto it = ready.find(key);
      return it != ready.end() && it->is_number() ? it->get<double>() : 0.0;
    };
    if (auto it = ready.find("version"); it != ready.end() && it->is_string())
      e_.partner_version = it->get<std::string>();
    e_.partner_compile_s = number("compile_s");
    e_.partner_warmup_s = number("warmup_s");
    e_.partner_copy_ms = number("copy_ms");
    if (auto it = ready.find("seccomp"); it != ready.end() && it->is_string())
      e_.partner_seccomp = it->get<std::string>();
    return std::nullopt;
  }

  std::optional<Judgement> check() {
    say(fmt::format("checking on {} secret input sets", check_inputs_.size()));
    auto check_start = Clock::now();
    std::vector<OutputSnapshot> results;
    auto failed = run_check_calls(*candidate_, 0, check_inputs_.size(), opt_.call_timeout_s,
                                  results, &e_.check_ms);
    e_.phases.check_s = core::seconds_since(check_start);
    e_.kernel_output = candidate_->printed();
    if (!failed) failed = candidate_->channel_untouched("the check");
    if (failed) return failed;
    if (!opt_.dump_dir.empty())
      if (auto st = dump_check_sets(opt_.dump_dir, task_, check_inputs_, results, references_); !st)
        return Judgement{Verdict::runtime_error, "--dump: " + st.error().message};
    if (auto j = judge_check(results, references_, task_, "the kernel", e_)) return j;
    if (!partner_ || partner_->trusted()) return std::nullopt;
    std::vector<OutputSnapshot> partner_results;
    if (auto j = run_check_calls(*partner_, 1, check_inputs_.size(), opt_.call_timeout_s,
                                 partner_results, nullptr))
      return partner_failure(*j);
    if (auto j = judge_check(partner_results, references_, task_, partner_->who(), e_))
      return partner_failure(*j);
    return std::nullopt;
  }

  // With the machine to itself (this process's other evaluations and other kforge processes
  // wait), sampling the load outside kforge before and between pairs. An interpreter's time
  // decides nothing (timing_basis): it keeps the shared hold, as a compile does, so it never runs
  // during another's measurement and no measurement starts during it, but it need not wait for
  // other compiles and interpreted timings to end, nor they for it.
  std::optional<Judgement> time() {
    const bool alone = opt_.time && opt_.machine_lock && e_.timing_is_performance();
    if (shared_.owns_lock() && (alone || !opt_.time)) shared_.unlock();
    if (alone) {
      double wait_start = monotonic_seconds();
      measuring_ = opt_.machine_lock->measure();
      e_.lock_wait_s = monotonic_seconds() - wait_start;
    }
    // With the machine held (no other kforge process starts a compile), give outside work a bounded
    // time to finish before timing; the load verdict below still judges the timing itself.
    // An interpreter's time decides nothing (timing_basis): no reason to wait for quiet.
    if (waits_for_quiet()) {
      // The probe taken while the kernels loaded stands for the first one, unless another
      // process's timing was waited for since.
      auto taken = early_load_.valid() ? early_load_.get() : std::vector<LoadSample>{};
      if (e_.lock_wait_s > kStaleEarlyLoadS) taken.clear();
      e_.quiet_wait =
          opt_.quiet_waiter->wait(e_.threads, watched_pids(), opt_.progress, std::move(taken));
    }
    e_.timing_start = monotonic_seconds();
    if (!opt_.time) return std::nullopt;
    say(e_.partner.empty() ? std::string("timing")
                           : fmt::format("timing against the {}", e_.partner));
    LoadSampler load(e_, watched_pids(), opt_.time_budget_s, e_.quiet_wait.samples);
    e_.call_overhead_ms = candidate_->round_trip_ms(21);
    inputs_.emplace(*timing_set_, task_);
    PairedTimingRequest request{opt_.time_budget_s, opt_.warmup_s, opt_.min_pairs,
                                opt_.max_pairs,     opt_.perturb,  opt_.call_timeout_s};
    request.audit_every = opt_.audit_every;
    request.sample_lines = opt_.sample_lines;
    request.between_pairs = [&load] { load.between_pairs(); };
    auto time_start = Clock::now();
    auto timed =
        time_paired(*candidate_, partner_ ? &*partner_ : nullptr, *inputs_, task_, request);
    e_.phases.time_s = core::seconds_since(time_start);
    partner_idle_ms_ = timed.partner_idle_ms;
    judge_machine_load(measuring_.contention, e_);
    if (!timed.failure) timed.failure = candidate_->channel_untouched("timing");
    if (!timed.failure && partner_ && !partner_->trusted())
      timed.failure = partner_->channel_untouched("timing");
    // A failure that names the peer is the peer's (it crashed, or left work running); a
    // disagreement between the two is not decided here: both were right on every secret set.
    if (timed.failure && partner_python_ && timed.failure->reason.rfind(partner_->who(), 0) == 0)
      e_.partner_failed = true;
    if (auto j = judge_timing(timed, task_, e_)) {
      e_.kernel_output = candidate_->printed();
      return j;
    }
    if (opt_.machine) rate_against_peaks(task_, *opt_.machine, e_);
    return std::nullopt;
  }

  std::optional<Judgement> profile() {
    if (opt_.time && opt_.profile_seconds > 0 && !python_kernel()) {
      say("profiling");
      auto profiled = candidate_->profile(opt_.profile_seconds, opt_.profile_seconds * 4 + 30);
      if (!profiled) return Judgement{Verdict::runtime_error, profiled.error().message};
      e_.profile = build_profile(ctx_, source_, file_name_, opt_, e_, *profiled);
    }
    e_.timing_end = monotonic_seconds();
    if (opt_.machine) pace_the_partner(*opt_.machine, partner_alone_ms(), e_, alone_pause_ms());
    if (measuring_.owns_lock()) {
      opt_.machine_lock->record({e_.timing_start, e_.timing_end});
      measuring_.unlock();
    }
    if (shared_.owns_lock()) shared_.unlock();
    return std::nullopt;
  }

  // The partner timed alone, its candidate stopped: the pace it is kept at (pace_the_partner).
  // A few calls, after every figure of the candidate is taken; nothing when it cannot be had.
  std::optional<double> partner_alone_ms() {
    if (!opt_.time || !partner_ || !e_.baseline || !inputs_) return std::nullopt;
    candidate_->stop();
    PairedTimingRequest alone{0.2, 0, 5, 15, opt_.perturb, opt_.call_timeout_s};
    alone.idle_before_call_ms = alone_pause_ms();
    auto timed = time_paired(*partner_, nullptr, *inputs_, task_, alone);
    if (timed.failure || timed.candidate_ms.empty()) return std::nullopt;
    return summarize(timed.candidate_ms).median_ms;
  }

  bool waits_for_quiet() const {
    return opt_.time && opt_.quiet_waiter && e_.timing_is_performance();
  }

  // kforge's kernel processes: their threads are kforge's own in a load sample.
  std::vector<pid_t> watched_pids() const {
    std::vector<pid_t> pids{candidate_->pid()};
    if (partner_) pids.push_back(partner_->pid());
    return pids;
  }

  // The pause before each call of the partner timed alone: the one it had beside the kernel.
  double alone_pause_ms() const { return std::min(partner_idle_ms_, kLongestAlonePauseMs); }

  // Every step passed: the processes are stopped and the verdict is correct.
  Judgement correct() {
    candidate_->stop();
    if (partner_) partner_->stop();
    e_.kernel_output = candidate_->printed();
    std::string reason = fmt::format("correct on {} secret input sets", check_inputs_.size());
    if (e_.speedup && !e_.timing_is_performance())
      reason += fmt::format("; timed in {} against the {}: not a performance figure",
                            e_.timing_basis, e_.partner);
    else if (e_.speedup && e_.machine_busy)
      reason +=
          fmt::format("; timed against the {} on a busy machine: no speedup figure", e_.partner);
    else if (e_.speedup)
      reason += fmt::format("; {:.2f}x the {} (median of {} paired runs)", e_.speedup->median,
                            e_.partner, e_.candidate->samples);
    return {Verdict::correct, reason};
  }

  const TaskContext& ctx_;
  const core::ResolvedTask task_;  // the context's, with the tolerance at the evaluation's dtype
  const std::string& source_;
  const std::string& file_name_;
  const EvalOptions& opt_;
  const bool against_;
  const Clock::time_point start_ = Clock::now();
  const Walls walls_ = machine_walls();
  const char* step_ = "starting";
  Evaluation e_;
  // In the order they are made, so that they are released in reverse: the processes before their
  // input and output sets, the scratch folder after the processes that read it, the compiles
  // (whose futures wait for them) and the shared hold last.
  MachineLock::Shared shared_;
  std::future<toolchain::CompileResult> compiling_, against_compiling_;
  Scratch scratch_{ctx_.state_dir()};
  std::filesystem::path partner_library_, partner_folder_;
  std::vector<std::filesystem::path> partner_reads_;  // folders the partner reads as it runs
  std::optional<PythonKernel> partner_python_;
  bool partner_trusted_ = true;
  std::vector<SharedSet> check_inputs_, references_;
  std::optional<SharedSet> timing_set_;
  std::optional<TimingInputs> inputs_;
  std::vector<const SharedSet*> all_sets_;
  std::vector<SharedSet> candidate_outputs_, partner_outputs_;
  std::optional<KernelProcess> candidate_, partner_;
  double partner_idle_ms_ = 0;  // the partner's idle time before each paired call (median)
  std::future<std::vector<LoadSample>> early_load_;  // the quiet wait's first probe, taken early
  MachineLock::Exclusive measuring_;
};

}  // namespace

Evaluation evaluate(const TaskContext& ctx, const std::string& source, const std::string& file_name,
                    const EvalOptions& opt) {
  if (opt.executor) return opt.executor->evaluate(ctx, source, file_name, opt);
  return evaluate_here(ctx, source, file_name, opt);
}

Evaluation evaluate_here(const TaskContext& ctx, const std::string& source,
                         const std::string& file_name, const EvalOptions& opt) {
  return EvaluationRun(ctx, source, file_name, opt).run();
}

}  // namespace kforge::eval
