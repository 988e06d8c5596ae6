// One kernel process, driven through the control page. The clock, the poison, the copy of the
// outputs and the CPU accounting are all on this side.
#include "kforge/eval/kernel_process.h"

#include <fmt/format.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "kforge/eval/load_probe.h"
#include "kforge/eval/process_freeze.h"
#include "kforge/runner/job.h"

namespace kforge::eval {
namespace {

using Clock = std::chrono::steady_clock;

double now_ms() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + ts.tv_nsec * 1e-6;
}

Clock::time_point after(double seconds) {
  return Clock::now() + std::chrono::microseconds(static_cast<long long>(seconds * 1e6));
}

// A page of shared memory for the control words, unmapped and closed with its owner.
struct ControlMemory {
  int fd = -1;
  runner::ControlPage* page = nullptr;
  ~ControlMemory() {
    if (page) munmap(page, sizeof(runner::ControlPage));
    if (fd >= 0) close(fd);
  }
};

}  // namespace

struct KernelProcess::State {
  KernelProcessSpec spec;
  std::optional<RunnerProcess> proc;
  ControlMemory control;
  std::vector<std::vector<unsigned char*>> out_ptrs;  // per output set, per tensor
  std::vector<std::vector<const unsigned char*>> out_cptrs;
  std::vector<std::size_t> out_bytes;
  clockid_t cpu_clock = CLOCK_MONOTONIC;
  bool has_cpu_clock = false;
  std::uint32_t sequence = 0;
  int landlock_abi = 0;
  nlohmann::json ready;
};

KernelProcess::KernelProcess(std::unique_ptr<State> state) : s_(std::move(state)) {}
KernelProcess::KernelProcess(KernelProcess&&) noexcept = default;
KernelProcess& KernelProcess::operator=(KernelProcess&&) noexcept = default;
KernelProcess::~KernelProcess() {
  if (s_ && s_->proc) s_->proc->kill();
}

int KernelProcess::pid() const { return s_->proc ? s_->proc->pid() : -1; }

const std::string& KernelProcess::who() const { return s_->spec.who; }
bool KernelProcess::trusted() const { return s_->spec.trusted; }
int KernelProcess::landlock_abi() const { return s_->landlock_abi; }
std::string KernelProcess::printed() const { return s_->proc->output(); }
const nlohmann::json& KernelProcess::ready_report() const { return s_->ready; }

namespace {

// The child for a Python kernel: the venv's interpreter running the worker, confined by a Landlock
// ruleset applied between fork and exec (its abi is what holds, whatever the worker says).
Result<RunnerProcess> start_python(const KernelProcessSpec& spec, int& landlock_abi) {
  auto launch = python_launch(*spec.python, spec.folder, spec.threads);
  if (!launch) return launch.error();
  auto ruleset = core::LandlockRuleset::prepare(launch->view);
  if (!ruleset) return Error{"the Python worker's Landlock view: " + ruleset.error().message};
  landlock_abi = ruleset->abi();
  RunnerLaunch how{launch->argv, launch->env, &*ruleset, spec.cpus, !spec.timed};
  return RunnerProcess::start(spec.threads, spec.folder, how);
}

}  // namespace

Result<KernelProcess> KernelProcess::start(const KernelProcessSpec& spec) {
  auto s = std::make_unique<State>();
  s->spec = spec;
  const auto& task = *spec.task;
  for (const SharedSet* set : spec.output_sets) {
    s->out_ptrs.emplace_back();
    s->out_cptrs.emplace_back();
    for (std::size_t i = 0; i < task.outputs.size(); ++i) {
      s->out_ptrs.back().push_back(set->tensor(i));
      s->out_cptrs.back().push_back(set->tensor(i));
    }
  }
  for (const auto& t : task.outputs) s->out_bytes.push_back(t.bytes);
  auto fd = runner::create_shared_file("kforge-control", sizeof(runner::ControlPage));
  if (!fd) return fd.error();
  s->control.fd = *fd;
  void* page =
      mmap(nullptr, sizeof(runner::ControlPage), PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
  if (page == MAP_FAILED)
    return Error{fmt::format("mapping the control page: {}", std::strerror(errno))};
  s->control.page = new (page) runner::ControlPage();

  auto proc = spec.python ? start_python(spec, s->landlock_abi)
                          : RunnerProcess::start(spec.threads, spec.folder,
                                                 {.cpus = spec.cpus, .passive_wait = !spec.timed});
  if (!proc) return proc.error();
  s->proc.emplace(std::move(*proc));
  s->has_cpu_clock = clock_getcpuclockid(s->proc->pid(), &s->cpu_clock) == 0;

  runner::KernelSetup setup;
  setup.trusted = spec.trusted;
  setup.library = spec.python ? spec.python->module.string() : spec.library.string();
  setup.inputs = runner::tensor_infos(task.inputs);
  setup.outputs = runner::tensor_infos(task.outputs);
  setup.input_sets = static_cast<int>(spec.input_sets.size());
  setup.output_sets = static_cast<int>(spec.output_sets.size());
  setup.threads = spec.threads;
  setup.cpus = spec.cpus;
  setup.readable = {spec.folder.string()};
  for (const auto& dir : spec.readable) setup.readable.push_back(dir.string());
  setup.preload = spec.preload;
  setup.memory_bytes = spec.memory_bytes;
  setup.cpu_seconds = spec.cpu_seconds;
  std::vector<int> fds;
  for (const auto* set : spec.input_sets) fds.push_back(set->fd());
  for (const auto* set : spec.output_sets) fds.push_back(set->fd());
  fds.push_back(s->control.fd);
  auto message = runner::to_json(setup);
  if (spec.python)
    message["python"] = {{"module", spec.python->module.string()},
                         {"callable", spec.python->callable},
                         {"framework", spec.python->framework},
                         {"dtype", spec.python->dtype},
                         {"task_dir", spec.folder.string()}};
  s->proc->send(message, fds);
  return KernelProcess(std::move(s));
}

Judgement KernelProcess::failure(const std::string& why, const std::string& phase,
                                 double timeout_s) {
  // A fault report, when the runner wrote one, says more than the exit status.
  if (why != "timeout") {
    auto report = s_->proc->receive(after(2));
    if (report) {
      std::string op = message_op(report->body);
      if (op == "fault" || op == "error") {
        s_->proc->wait(after(5));
        auto j = judge_runner_message(report->body, phase);
        j.reason = s_->spec.who + ": " + j.reason;
        return j;
      }
    }
  }
  // The runner's fault handler marks `done` only after its report is written, then ends the
  // process: a mark with no report and a process that lives on is the kernel writing the control
  // page (the SIGKILL below would otherwise read as another process's or the OOM killer's).
  if (why == "claimed_fault" && !s_->proc->poll_exit()) {
    s_->proc->kill();
    s_->proc->wait(after(5));
    return {Verdict::sandbox_violation,
            fmt::format("{}: during {} its process marked the call as crashed in kforge's "
                        "control page but sent no fault report and kept running: a kernel must "
                        "not write the control page",
                        s_->spec.who, phase)};
  }
  s_->proc->kill();
  auto exit = s_->proc->wait(after(5));
  auto j = judge_runner_silence(why == "claimed_fault" ? "closed" : why, exit, phase, timeout_s,
                                s_->proc->output());
  j.reason = s_->spec.who + ": " + j.reason;
  return j;
}

bool KernelProcess::cancelled() const { return s_->spec.cancel && s_->spec.cancel->load(); }

Judgement KernelProcess::interrupted(const std::string& phase) {
  s_->proc->kill();
  s_->proc->wait(after(5));
  return {Verdict::interrupted,
          fmt::format("{}: interrupted (Ctrl-C) during {}", s_->spec.who, phase)};
}

std::optional<Judgement> KernelProcess::wait_ready(double timeout_s) {
  // In slices, so that a Ctrl-C during a long load (a peer compiling for minutes) is seen.
  const auto deadline = after(timeout_s);
  auto ready = s_->proc->receive(std::min(deadline, after(0.05)));
  while (!ready && ready.error().message == "timeout" && Clock::now() < deadline) {
    if (cancelled()) return interrupted("loading");
    ready = s_->proc->receive(std::min(deadline, after(0.05)));
  }
  if (!ready)
    return failure(ready.error().message == "timeout" ? "timeout" : "closed", "loading", timeout_s);
  const auto& body = ready->body;
  if (message_op(body) != "ready") {
    s_->proc->kill();
    s_->proc->wait(after(5));
    auto j = judge_runner_message(body, "loading");
    j.reason = s_->spec.who + ": " + j.reason;
    return j;
  }
  s_->ready = body;
  if (s_->spec.python) return std::nullopt;  // its Landlock abi is the parent's own ruleset's
  const auto& abi = body.contains("landlock_abi") ? body["landlock_abi"] : nlohmann::json();
  s_->landlock_abi = abi.is_number_integer() ? abi.get<int>() : 0;
  return std::nullopt;
}

CallOutcome KernelProcess::run_command(runner::Command command, std::uint32_t set, double timeout_s,
                                       const std::string& phase) {
  runner::ControlPage* c = s_->control.page;
  c->command = static_cast<std::uint32_t>(command);
  c->input_set = set;
  if (command != runner::Command::call) c->output_set = 0;
  const std::uint32_t seq = ++s_->sequence;
  const auto deadline = after(timeout_s);
  const double t0 = now_ms();
  c->go.store(seq, std::memory_order_release);
  runner::futex_wake_all(&c->go);
  for (;;) {
    const std::uint32_t done = c->done.load(std::memory_order_acquire);
    if (done == seq) return {now_ms() - t0, std::nullopt};
    if (done == runner::kFaulted) return {0, failure("claimed_fault", phase, timeout_s)};
    auto left = deadline - Clock::now();
    if (left <= Clock::duration::zero()) return {0, failure("timeout", phase, timeout_s)};
    if (cancelled()) return {0, interrupted(phase)};
    runner::futex_wait(&c->done, done,
                       std::min<Clock::duration>(left, std::chrono::milliseconds(50)));
    if (c->done.load(std::memory_order_acquire) == done && s_->proc->poll_exit())
      return {0, failure("closed", phase, timeout_s)};
  }
}

CallOutcome KernelProcess::call(std::uint32_t set, std::uint32_t out, double timeout_s,
                                const std::string& phase) {
  poison_outputs(s_->out_ptrs.at(out), s_->spec.task->outputs);
  s_->control.page->output_set = out;
  return run_command(runner::Command::call, set, timeout_s, phase);
}

double KernelProcess::round_trip_ms(int n) {
  std::vector<double> ms;
  for (int i = 0; i < n; ++i) {
    auto r = run_command(runner::Command::noop, 0, 5, "an empty call");
    if (r.failure) return 0;
    ms.push_back(r.ms);
  }
  std::sort(ms.begin(), ms.end());
  return ms.empty() ? 0 : ms[ms.size() / 2];
}

void KernelProcess::snapshot(std::uint32_t out, OutputSnapshot& into, std::mt19937_64& rng) const {
  take_snapshot(s_->out_cptrs.at(out), s_->out_bytes, rng, into);
}

bool KernelProcess::unchanged_since(std::uint32_t out, const OutputSnapshot& snapshot) const {
  return eval::unchanged_since(s_->out_cptrs.at(out), snapshot);
}

void KernelProcess::snapshot(std::uint32_t out, const OutputSample& sample, OutputSnapshot& into,
                             std::mt19937_64& rng) const {
  take_sample(s_->out_cptrs.at(out), s_->out_bytes, sample, rng, into);
}

bool KernelProcess::unchanged_since(std::uint32_t out, const OutputSample& sample,
                                    const OutputSnapshot& taken) const {
  return sample_unchanged(s_->out_cptrs.at(out), s_->out_bytes, sample, taken);
}

const std::vector<const unsigned char*>& KernelProcess::outputs(std::uint32_t out) const {
  return s_->out_cptrs.at(out);
}

const std::vector<std::size_t>& KernelProcess::output_bytes() const { return s_->out_bytes; }

double KernelProcess::cpu_ms() const {
  timespec ts{};
  if (!s_->has_cpu_clock || clock_gettime(s_->cpu_clock, &ts) != 0) return 0;
  return static_cast<double>(ts.tv_sec) * 1e3 + ts.tv_nsec * 1e-6;
}

SettleState settle_state(const SettleSample& s, double max_cpu_s) {
  if (s.quiet_window) return SettleState::settled;
  if (s.cpu_since_return_ms > max_cpu_s * 1e3 || s.wall_since_return_ms > 30 * max_cpu_s * 1e3)
    return SettleState::left_running;
  return SettleState::settling;
}

bool KernelProcess::settle(double max_cpu_s) {
  // Idle: every thread asleep (a spinning thread that the scheduler merely preempted is still
  // runnable, so a quiet CPU clock alone is not enough on a loaded machine), and under 10% of one
  // core used over the last quarter millisecond.
  constexpr double kWindowMs = 0.25, kBusyShare = 0.1;
  const double cpu0 = cpu_ms(), t0 = now_ms();
  double before = cpu0, t = t0;
  for (;;) {
    timespec nap{0, static_cast<long>(kWindowMs * 1e6)};
    nanosleep(&nap, nullptr);
    const double cpu = cpu_ms(), t2 = now_ms();
    SettleSample sample{
        cpu - cpu0, t2 - t0,
        cpu - before < kBusyShare * (t2 - t) && running_threads(s_->proc->pid()) == 0};
    if (cancelled()) return true;  // nothing more is judged: the next call ends as interrupted
    switch (settle_state(sample, max_cpu_s)) {
      case SettleState::settled:
        return true;
      case SettleState::left_running:
        return false;
      case SettleState::settling:
        break;
    }
    before = cpu;
    t = t2;
  }
}

void KernelProcess::begin_freeze() {
  if (s_->proc) eval::begin_freeze(s_->proc->pid());
}

std::optional<Judgement> KernelProcess::wait_frozen(const std::string& phase) {
  if (eval::wait_frozen(s_->proc->pid()) == FreezeOutcome::frozen) return std::nullopt;
  return failure("closed", phase, 0);
}

bool KernelProcess::frozen() const { return is_frozen(s_->proc->pid()); }

void KernelProcess::thaw() {
  if (s_->proc) eval::thaw(s_->proc->pid());
}

std::optional<Judgement> KernelProcess::channel_untouched(const std::string& phase) {
  if (!s_->proc->message_waiting()) return std::nullopt;
  auto message = s_->proc->receive(after(1));
  nlohmann::json body = message ? message->body : nlohmann::json::object();
  auto j = judge_runner_message(body, phase);
  j.reason = s_->spec.who + ": " + j.reason;
  return j;
}

Result<nlohmann::json> KernelProcess::profile(double seconds, double timeout_s) {
  s_->control.page->profile_seconds = seconds;
  auto outcome = run_command(runner::Command::profile, 0, timeout_s, "profiling");
  if (outcome.failure) return Error{outcome.failure->reason};
  auto report = s_->proc->receive(after(2));
  if (!report) return Error{"profiling: no report from the runner"};
  if (message_op(report->body) != "profiled")
    return Error{"profiling: the runner sent something else than a profile"};
  return report->body;
}

void KernelProcess::stop() {
  runner::ControlPage* c = s_->control.page;
  c->command = static_cast<std::uint32_t>(runner::Command::stop);
  c->go.store(++s_->sequence, std::memory_order_release);
  runner::futex_wake_all(&c->go);
  s_->proc->wait(after(5));
}

}  // namespace kforge::eval
