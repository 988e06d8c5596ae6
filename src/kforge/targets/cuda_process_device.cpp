// fork/exec of kforge-run-cuda with the channel on fd 3, and the request/reply loop with its
// watchdog (poll with a deadline, then SIGKILL to the process group).
#include "kforge/targets/cuda_process_device.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>

#include "kforge/core/fs.h"
#include "kforge/core/paths.h"
#include "kforge/core/python_env.h"
#include "kforge/core/task_python.h"
#include "kforge/eval/load_probe.h"
#include "kforge/eval/python_kernel.h"
#include "kforge/runner/cuda_wire.h"

namespace kforge::eval {
namespace {

namespace wire = runner::cuda_wire;
constexpr int kChannelFd = 3;

std::filesystem::path runner_executable() { return core::helper_dir() / "kforge-run-cuda"; }

class CudaProcessDevice : public GpuDevice {
 public:
  CudaProcessDevice(pid_t pid, int channel, int output, const std::atomic<bool>* cancel)
      : pid_(pid), channel_(channel), cancel_(cancel) {
    reader_ = std::thread([this, output] {
      char buf[4096];
      for (ssize_t n; (n = ::read(output, buf, sizeof buf)) > 0;) {
        std::lock_guard lock(mu_);
        if (output_.size() < (64u << 10)) output_.append(buf, static_cast<std::size_t>(n));
      }
      ::close(output);
      std::lock_guard lock(mu_);
      output_done_ = true;
      output_cv_.notify_all();
    });
  }
  ~CudaProcessDevice() override {
    ::close(channel_);
    kill_group();
    if (reader_.joinable()) reader_.join();
  }

  // The "ready" reply, or why the process could not load the kernel.
  Status await_ready(double timeout_s) {
    auto r = receive(timeout_s);
    if (!r) return with_context(r.error(), "kforge-run-cuda");
    return ok_status();
  }

  Result<DeviceBuffer> allocate(std::size_t bytes) override {
    auto r = request({wire::Op::allocate, 0, bytes}, nullptr, 0, 60);
    if (!r) return r.error();
    return DeviceBuffer{static_cast<int>(r->value), bytes};
  }
  Status upload(const DeviceBuffer& to, std::span<const std::byte> from) override {
    auto r = request({wire::Op::upload, static_cast<std::uint32_t>(to.id), from.size()},
                     from.data(), from.size(), 60);
    return r ? ok_status() : Status(r.error());
  }
  Status download(const DeviceBuffer& from, std::span<std::byte> to) override {
    return read_buffer(wire::Op::download, from, to);
  }
  DeviceCall call(const std::vector<DeviceBuffer>& args, double timeout_s) override {
    std::vector<std::uint32_t> ids;
    ids.reserve(args.size());
    for (const auto& a : args) ids.push_back(static_cast<std::uint32_t>(a.id));
    auto r = request({wire::Op::call, static_cast<std::uint32_t>(ids.size()),
                      ids.size() * sizeof(std::uint32_t)},
                     ids.data(), ids.size() * sizeof(std::uint32_t), timeout_s);
    if (r) return {DeviceCall::Outcome::returned, {}};
    if (hung_) return {DeviceCall::Outcome::hung, {}};
    return {DeviceCall::Outcome::failed, r.error().message};
  }
  Status peek(const DeviceBuffer& from, std::span<std::byte> to) override {
    return read_buffer(wire::Op::peek, from, to);
  }
  DeviceCall synchronize(double timeout_s) override {
    auto r = request({wire::Op::synchronize, 0, 0}, nullptr, 0, timeout_s);
    if (r) return {DeviceCall::Outcome::returned, {}};
    if (hung_) return {DeviceCall::Outcome::hung, {}};
    return {DeviceCall::Outcome::failed, r.error().message};
  }
  // Idle as the cpp target's judge sees a process idle (kernel_process.h, settle_state): every
  // thread asleep and under a tenth of a core used over a quarter millisecond, after the window;
  // left running once it used a second of CPU after the return without becoming idle. The wire
  // is quiet meanwhile: the runner's main thread waits for the next request.
  bool settle(double window_s) override {
    if (pid_ <= 0) return true;  // gone: the next request says how it ended
    constexpr double kQuietMs = 0.25, kBusyShare = 0.1, kMaxCpuS = 1.0;
    clockid_t clock{};
    const bool has_clock = ::clock_getcpuclockid(pid_, &clock) == 0;
    auto cpu_ms = [&] {
      timespec ts{};
      if (!has_clock || ::clock_gettime(clock, &ts) != 0) return 0.0;
      return static_cast<double>(ts.tv_sec) * 1e3 + ts.tv_nsec * 1e-6;
    };
    auto now_ms = [] {
      return std::chrono::duration<double, std::milli>(
                 std::chrono::steady_clock::now().time_since_epoch())
          .count();
    };
    const double cpu0 = cpu_ms(), t0 = now_ms();
    std::this_thread::sleep_for(std::chrono::duration<double>(window_s));
    double before = cpu_ms(), t = now_ms();
    for (;;) {
      if (cancel_ && cancel_->load()) return true;  // the next request says it was interrupted
      std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(kQuietMs));
      const double cpu = cpu_ms(), t2 = now_ms();
      if (cpu - before < kBusyShare * (t2 - t) && running_threads(pid_) == 0) return true;
      // CPU, not wall time, bounds the wait (a loaded machine delays a thread going to sleep);
      // the wall bound only ends a wait that cannot end.
      if (cpu - cpu0 > kMaxCpuS * 1e3 || t2 - t0 > 30 * kMaxCpuS * 1e3) return false;
      before = cpu;
      t = t2;
    }
  }
  Status flush_l2() override {
    auto r = request({wire::Op::flush_l2, 0, 0}, nullptr, 0, 60);
    return r ? ok_status() : Status(r.error());
  }
  Result<std::vector<std::byte>> gather(const DeviceBuffer& from,
                                        const std::vector<Range>& ranges) override {
    std::vector<wire::Range> w;
    std::size_t total = 0;
    for (const auto& r : ranges) {
      w.push_back({r.offset, r.length});
      total += r.length;
    }
    auto r = request(
        {wire::Op::gather, static_cast<std::uint32_t>(from.id), w.size() * sizeof(wire::Range)},
        w.data(), w.size() * sizeof(wire::Range), 60);
    if (!r) return r.error();
    if (payload_.size() != total)
      return Error{fmt::format("kforge-run-cuda sent {} bytes where {} were asked for",
                               payload_.size(), total)};
    std::vector<std::byte> bytes(total);
    std::memcpy(bytes.data(), payload_.data(), total);
    return bytes;
  }
  BatchOutcome time_calls(const TimedBatch& b) override {
    auto payload = batch_payload(b);
    BatchOutcome out;
    unsupported_ = false;
    auto r = request({wire::Op::time_calls, 0, payload.size()}, payload.data(), payload.size(),
                     b.timeout_s);
    if (!r) {
      out.unsupported = unsupported_;
      out.call = {hung_ ? DeviceCall::Outcome::hung : DeviceCall::Outcome::failed,
                  r.error().message};
      return out;
    }
    if (payload_.size() != static_cast<std::size_t>(b.calls) * sizeof(wire::CallTimes)) {
      out.call = {DeviceCall::Outcome::failed,
                  fmt::format("kforge-run-cuda sent {} bytes of times for {} calls",
                              payload_.size(), b.calls)};
      return out;
    }
    out.times.resize(static_cast<std::size_t>(b.calls));
    for (std::size_t k = 0; k < out.times.size(); ++k) {
      wire::CallTimes t;
      std::memcpy(&t, payload_.data() + k * sizeof t, sizeof t);
      out.times[k] = {t.device_ms, t.host_ms};
    }
    out.call = {DeviceCall::Outcome::returned, {}};
    return out;
  }
  Death death() const override {
    std::lock_guard lock(mu_);
    return {signal_, output_};
  }
  // Closing the channel ends the runner's loop; a sanitizer then prints its summary and exits.
  Result<std::string> finish() override {
    if (pid_ > 0) {
      ::shutdown(channel_, SHUT_RDWR);
      using Clock = std::chrono::steady_clock;
      const auto deadline = Clock::now() + std::chrono::seconds(60);
      int status = 0;
      while (Clock::now() < deadline && ::waitpid(pid_, &status, WNOHANG) == 0)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      if (::waitpid(pid_, &status, WNOHANG) == 0) kill_group();
      pid_ = -1;
    }
    if (reader_.joinable()) reader_.join();
    std::lock_guard lock(mu_);
    return output_;
  }

 private:
  static std::vector<char> batch_payload(const TimedBatch& b) {
    std::vector<char> p;
    auto put = [&p](const void* data, std::size_t n) {
      const auto* c = static_cast<const char*>(data);
      p.insert(p.end(), c, c + n);
    };
    wire::BatchHeader h{static_cast<std::uint32_t>(b.calls),
                        static_cast<std::uint32_t>(b.inputs.size()),
                        static_cast<std::uint32_t>(b.outputs.size()),
                        b.null_call ? wire::kNullCall : 0u,
                        static_cast<std::uint32_t>(std::max(b.table_buffer.id, 0)),
                        0};
    put(&h, sizeof h);
    for (const auto& in : b.inputs) {
      wire::BatchInput w;
      w.buffer = static_cast<std::uint32_t>(in.buffer.id);
      w.pristine = static_cast<std::uint32_t>(in.pristine.id);
      w.fresh = in.tables.empty() ? wire::Fresh::copy
                : in.f64          ? wire::Fresh::scale_f64
                                  : wire::Fresh::scale_f32;
      w.bytes = in.buffer.bytes;
      put(&w, sizeof w);
    }
    for (const auto& o : b.outputs) {
      auto id = static_cast<std::uint32_t>(o.id);
      put(&id, sizeof id);
    }
    for (const auto& call : b.snapshots)
      for (const auto& s : call) {
        auto id = static_cast<std::uint32_t>(s.id);
        put(&id, sizeof id);
      }
    for (int k = 0; k < b.calls; ++k)
      for (const auto& in : b.inputs)
        if (!in.tables.empty()) put(in.tables[k].data(), in.tables[k].size());
    return p;
  }

  Status read_buffer(wire::Op op, const DeviceBuffer& from, std::span<std::byte> to) {
    auto r = request({op, static_cast<std::uint32_t>(from.id), to.size()}, nullptr, 0, 60);
    if (!r) return r.error();
    if (payload_.size() != to.size())
      return Error{fmt::format("kforge-run-cuda sent {} bytes where {} were asked for",
                               payload_.size(), to.size())};
    std::memcpy(to.data(), payload_.data(), to.size());
    return ok_status();
  }

  Result<wire::Reply> request(const wire::Request& q, const void* payload, std::size_t n,
                              double timeout_s) {
    if (dead_) return Error{"the kernel's process is gone" + process_note()};
    if (!wire::write_all(channel_, &q, sizeof q) ||
        (n > 0 && !wire::write_all(channel_, payload, n))) {
      dead_ = true;
      return Error{"the kernel's process stopped reading requests" + process_note()};
    }
    return receive(timeout_s);
  }

  Result<wire::Reply> receive(double timeout_s) {
    if (!wait_readable(timeout_s)) {
      if (cancel_ && cancel_->load()) {
        dead_ = true;
        kill_group();  // Ctrl-C: the call, its threads and its device work end here
        return Error{"interrupted (Ctrl-C): the process was killed"};
      }
      hung_ = dead_ = true;
      kill_group();  // the watchdog: the call, its threads and its device work end here
      return Error{fmt::format("no reply within {:g} s: the process was killed", timeout_s)};
    }
    wire::Reply r;
    if (!wire::read_all(channel_, &r, sizeof r)) {
      dead_ = true;
      return Error{"the kernel's process died" + process_note()};
    }
    payload_.resize(r.length);
    if (r.length > 0 && !wire::read_all(channel_, payload_.data(), r.length)) {
      dead_ = true;
      return Error{"the kernel's process died mid-reply" + process_note()};
    }
    unsupported_ = r.status == wire::kUnsupported;
    if (r.status != 0) return Error{payload_};
    return r;
  }

  bool wait_readable(double timeout_s) {
    using Clock = std::chrono::steady_clock;
    const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_s);
    for (;;) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      if (left.count() <= 0) return false;
      if (cancel_ && cancel_->load()) return false;
      pollfd p{channel_, POLLIN, 0};
      // In slices of 50 ms, so that Ctrl-C is seen within them.
      int r = ::poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 50)));
      if (r > 0) return true;
      if (r < 0 && errno != EINTR) return false;
    }
  }

  void kill_group() {
    if (pid_ <= 0) return;
    ::kill(-pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    if (WIFSIGNALED(status)) signal_ = WTERMSIG(status);
    pid_ = -1;
  }

  std::string process_note() {
    // A process that closed its channel is exiting: give it a moment to become reapable, so the
    // signal that ended it (SIGSEGV, SIGBUS) can be named.
    for (int tries = 0; pid_ > 0 && tries < 100; ++tries) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        if (WIFSIGNALED(status)) signal_ = WTERMSIG(status);
        pid_ = -1;
        break;
      }
      if (!dead_) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    std::string note;
    if (signal_) note += fmt::format(" (killed by signal {}: {})", signal_, strsignal(signal_));
    // The process's last words (the trapped call it names before dying) may still be in the pipe:
    // once it is reaped, wait briefly for the reader to drain it.
    std::unique_lock lock(mu_);
    if (pid_ < 0)
      output_cv_.wait_for(lock, std::chrono::seconds(1), [this] { return output_done_; });
    if (!output_.empty()) note += "; its output: " + output_.substr(0, 2000);
    return note;
  }

  pid_t pid_;
  int channel_;
  const std::atomic<bool>* cancel_ = nullptr;
  int signal_ = 0;
  bool dead_ = false, hung_ = false, unsupported_ = false;
  std::string payload_;
  std::thread reader_;
  mutable std::mutex mu_;
  std::condition_variable output_cv_;
  bool output_done_ = false;  // the reader saw the end of the output
  std::string output_;
};

}  // namespace

Result<std::unique_ptr<GpuDevice>> start_cuda_process_device(const CudaProcessOptions& o) {
  auto exe = o.command.empty() ? runner_executable() : std::filesystem::path(o.command.front());
  if (!std::filesystem::exists(exe))
    return Error{fmt::format("the CUDA runner {} is missing (build kforge with scripts/setup)",
                             exe.string())};
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    return Error{fmt::format("socketpair: {}", std::strerror(errno))};
  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0) return Error{fmt::format("pipe: {}", std::strerror(errno))};
  // No LD_LIBRARY_PATH: each artifact finds its CUDA libraries through its own run path (nvcc's
  // toolkit for kernels and experts, the torch wheel's for baselines).
  std::vector<std::string> env = {"PATH=/usr/bin:/bin", "LANG=C"};
  env.insert(env.end(), o.env.begin(), o.env.end());
  std::vector<char*> envp;
  envp.reserve(env.size() + 1);
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::string exe_str = exe.string(), lib = o.library.string(), mode = "--host-memory",
              trusted = "--trusted", unwalled = "--unwalled";
  std::vector<std::string> wrapper = o.wrapper;
  std::vector<char*> argv;
  argv.reserve(wrapper.size() + o.command.size() + 6);
  std::vector<std::string> command = o.command;
  for (auto& w : wrapper) argv.push_back(w.data());
  if (command.empty()) {
    argv.push_back(exe_str.data());
    argv.push_back(lib.data());
  } else {
    for (auto& c : command) argv.push_back(c.data());
  }
  if (o.host_memory) argv.push_back(mode.data());
  if (o.trusted && o.command.empty()) argv.push_back(trusted.data());
  // A tool's injected library talks to its front end (sockets, shared memory): no walls there.
  if (!wrapper.empty() && o.command.empty()) argv.push_back(unwalled.data());
  argv.push_back(nullptr);
  const std::size_t memory = o.trusted ? 0 : o.memory_bytes;
  // The CUDA driver reserves address space far beyond what it backs (unified addressing maps
  // the device's memory into the process), so RLIMIT_AS would fail cuInit; RLIMIT_DATA counts
  // only private writable memory: what the kernel's host code allocates. Host-memory mode (no
  // driver) keeps RLIMIT_AS, as kforge-run has.
  const int memory_limit = o.host_memory ? RLIMIT_AS : RLIMIT_DATA;

  const pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) return Error{fmt::format("fork: {}", std::strerror(errno))};
  if (pid == 0) {
    ::setsid();
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(125);
    // First: the ruleset's descriptor may be one the next lines replace (its view lists
    // /dev/null).
    if (o.landlock && o.landlock->apply() != 0) ::_exit(124);
    ::dup2(sv[1], kChannelFd);
    int devnull = ::open("/dev/null", O_RDONLY);
    ::dup2(devnull, 0);
    ::dup2(out[1], 1);
    ::dup2(out[1], 2);
    ::syscall(SYS_close_range, kChannelFd + 1, ~0U, 0);
    if (memory > 0) {
      rlimit limit{memory, memory};
      ::setrlimit(memory_limit, &limit);
    }
    rlimit core{0, 0};
    ::setrlimit(RLIMIT_CORE, &core);
    if (!o.library.parent_path().empty() && ::chdir(o.library.parent_path().c_str()) != 0)
      ::_exit(126);
    ::execve(argv[0], argv.data(), envp.data());
    ::_exit(127);
  }
  ::close(sv[1]);
  ::close(out[1]);
  auto device = std::make_unique<CudaProcessDevice>(pid, sv[0], out[0], o.cancel);
  if (auto ready = device->await_ready(o.start_timeout_s); !ready) return ready.error();
  return std::unique_ptr<GpuDevice>(std::move(device));
}

Result<std::unique_ptr<GpuDevice>> start_python_gpu_device(
    const core::TaskSpec& spec, const core::ResolvedTask& task, const std::string& peer,
    const std::filesystem::path& scratch, bool host_memory, const std::atomic<bool>* cancel) {
  auto kernel = peer_kernel(spec, peer);
  if (!kernel) return kernel.error();
  auto python = python_interpreter();
  if (!python) return python.error();
  const auto worker = python_worker_script().parent_path() / "kforge_cuda_worker.py";
  if (!std::filesystem::exists(worker))
    return Error{
        fmt::format("the GPU peer worker {} is missing (rebuild kforge)", worker.string())};
  std::error_code ec;
  std::filesystem::create_directories(scratch, ec);
  if (auto st =
          core::write_atomic(scratch / "kforge_task.py", core::task_python_module(task, "f32"));
      !st)
    return st.error();
  const auto cache = core::user_cache_dir() / "python";
  CudaProcessOptions o;
  o.trusted = true;
  o.host_memory = host_memory;
  o.start_timeout_s = 900;  // Inductor and XLA compile before the first reply
  o.cancel = cancel;
  o.library = scratch / "kforge_task.py";  // the process starts in the scratch folder
  o.command = {python->string(),
               "-I",
               "-B",
               worker.string(),
               "--module",
               kernel->module.string(),
               "--callable",
               kernel->callable,
               "--framework",
               kernel->framework,
               "--task-dir",
               scratch.string()};
  o.env = {"HOME=" + scratch.string(),
           "TMPDIR=" + scratch.string(),
           "USER=kforge",
           "TORCHINDUCTOR_CACHE_DIR=" + (cache / "inductor").string(),
           "TRITON_CACHE_DIR=" + (cache / "triton").string(),
           std::string("JAX_PLATFORMS=") + (host_memory ? "cpu" : "cuda")};
  auto xla = xla_compile_cache_env(cache / "jax");
  o.env.insert(o.env.end(), xla.begin(), xla.end());
  auto device = start_cuda_process_device(o);
  if (!device) return with_context(device.error(), "starting the " + peer + " peer on the device");
  return device;
}

std::filesystem::path find_compute_sanitizer(const std::filesystem::path& cuda_home) {
  for (const auto& p : {cuda_home / "bin" / "compute-sanitizer",
                        cuda_home / "compute-sanitizer" / "compute-sanitizer"}) {
    std::error_code ec;
    if (std::filesystem::exists(p, ec)) return p;
  }
  return {};
}

std::filesystem::path find_ncu(const std::filesystem::path& cuda_home) {
  std::error_code ec;
  for (const auto& p : {cuda_home / "bin" / "ncu", cuda_home / "nsight-compute" / "ncu"})
    if (std::filesystem::exists(p, ec)) return p;
  return {};
}

std::vector<std::string> sanitizer_wrapper(const std::filesystem::path& sanitizer,
                                           const std::string& tool) {
  return {sanitizer.string(),   "--tool", tool, "--error-exitcode", "99", "--print-limit", "20",
          "--target-processes", "all"};
}

}  // namespace kforge::eval
