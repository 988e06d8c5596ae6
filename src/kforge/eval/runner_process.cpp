// fork/exec of kforge-run with the channel on fd 3 and a reader thread for its output.
#include "kforge/eval/runner_process.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <iterator>
#include <mutex>
#include <thread>

#include "kforge/core/paths.h"
#include "kforge/core/utf8.h"

namespace kforge::eval {

struct RunnerProcess::State {
  pid_t pid = -1;
  int channel = -1;
  int output_fd = -1;
  std::thread reader;
  mutable std::mutex mu;
  std::string output;
  bool reaped = false;
  RunnerExit exit;
};

std::string RunnerExit::describe() const {
  if (signal) return fmt::format("killed by signal {} ({})", signal, strsignal(signal));
  return fmt::format("exit status {}", code);
}

// Read here, not passed down: the tests of every layer start runners, from a build tree whose
// kforge-run is not beside the test binary (docs/environment.md).
std::filesystem::path runner_executable() { return core::helper_dir() / "kforge-run"; }

std::string openmp_openblas_dir() {
  const char* dir = "/usr/lib/x86_64-linux-gnu/openblas-openmp";
  return std::filesystem::exists(std::filesystem::path(dir) / "libblas.so.3") ? dir : "";
}

std::vector<std::string> runner_environment(int threads, bool passive_wait) {
  std::vector<std::string> env = {"PATH=/usr/bin:/bin", "LANG=C"};
  for (const char* name : {"OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"})
    env.push_back(fmt::format("{}={}", name, threads));
  // libtorch threads its own ops with OpenMP and its matmuls through BLAS. With the pthread build
  // of OpenBLAS the two pools fight for the cores (OpenMP workers spin while OpenBLAS's threads
  // run; baselines measured 1.3–4x slower here), so the OpenMP build is loaded first when
  // installed.
  std::string library_path = openmp_openblas_dir();
  // The child's environment is built from this process's own: read where it is built.
  if (const char* v = std::getenv("LD_LIBRARY_PATH"); v && *v)
    library_path += (library_path.empty() ? "" : ":") + std::string(v);
  if (!library_path.empty()) env.push_back("LD_LIBRARY_PATH=" + library_path);
  // Passed through because they change what the baseline's libraries do, and are reported.
  for (const char* name : {"OPENBLAS_CORETYPE", "OMP_PROC_BIND", "OMP_PLACES"})
    if (const char* v = std::getenv(name)) env.push_back(fmt::format("{}={}", name, v));
  if (passive_wait) {
    env.emplace_back("OMP_WAIT_POLICY=passive");
    return env;
  }
  bool user_set = false;
  for (const char* name : {"OMP_WAIT_POLICY", "GOMP_SPINCOUNT"})
    if (const char* v = std::getenv(name)) {
      env.push_back(fmt::format("{}={}", name, v));
      user_set = true;
    }
  if (!user_set) env.push_back(fmt::format("GOMP_SPINCOUNT={}", kTimedSpinCount));
  return env;
}

RunnerProcess::RunnerProcess(std::unique_ptr<State> state) : s_(std::move(state)) {}
RunnerProcess::RunnerProcess(RunnerProcess&&) noexcept = default;
RunnerProcess& RunnerProcess::operator=(RunnerProcess&&) noexcept = default;

Result<RunnerProcess> RunnerProcess::start(int threads, const std::filesystem::path& cwd,
                                           const RunnerLaunch& launch) {
  auto exe = launch.argv.empty() ? runner_executable() : std::filesystem::path(launch.argv[0]);
  if (!std::filesystem::exists(exe))
    return Error{
        fmt::format("the runner {} is missing (build kforge with scripts/setup)", exe.string())};
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
    return Error{fmt::format("socketpair: {}", std::strerror(errno))};
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) return Error{fmt::format("pipe: {}", std::strerror(errno))};
  int sndbuf = 4 << 20;
  setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof sndbuf);
  setsockopt(sv[0], SOL_SOCKET, SO_RCVBUF, &sndbuf, sizeof sndbuf);

  std::vector<std::string> env = runner_environment(threads, launch.passive_wait);
  env.insert(env.end(), launch.extra_env.begin(), launch.extra_env.end());
  std::vector<char*> envp;
  envp.reserve(env.size() + 1);
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = launch.argv.empty() ? std::vector{exe.string()} : launch.argv;
  std::vector<char*> argv;
  argv.reserve(args.size() + 1);
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  for (int c : launch.cpus)
    if (c >= 0 && c < CPU_SETSIZE) CPU_SET(c, &cpus);

  // The child's steps before exec, for the message when one fails: a failure there is kforge's
  // (an internal error), not the kernel's, and is reported through this pipe, which exec closes.
  enum PreExecStep { kParentGone, kAffinity, kLandlock, kChdir, kExec };
  static constexpr const char* kSteps[] = {"kforge ended", "sched_setaffinity (its CPUs)",
                                           "Landlock", "chdir", "execve"};  // by PreExecStep
  struct PreExecFailure {
    int step = 0, err = 0;
  };
  int status[2];
  if (pipe2(status, O_CLOEXEC) != 0) return Error{fmt::format("pipe: {}", std::strerror(errno))};

  const pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) return Error{fmt::format("fork: {}", std::strerror(errno))};
  if (pid == 0) {
    // Above the descriptors the child is given (0-3), so the dup2s below leave it alone.
    const int status_fd = fcntl(status[1], F_DUPFD_CLOEXEC, runner::kChannelFd + 1);
    auto fail = [status_fd](PreExecStep step, int code) {
      PreExecFailure f{step, errno};
      (void)!write(status_fd, &f, sizeof f);  // the parent reads it; nothing to do if it cannot
      _exit(code);
    };
    setsid();
    // Dies with kforge (Ctrl-C, a crash): no orphan keeps a kernel running.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) fail(kParentGone, 125);
    // Before exec: every thread the child starts, and every process it spawns, inherits the mask.
    if (!launch.cpus.empty() && sched_setaffinity(0, sizeof cpus, &cpus) != 0) fail(kAffinity, 123);
    // Landlock first: its ruleset's descriptor may be one of 0-3, which the copies below replace
    // (starting a worker then failed with "File descriptor in bad state").
    int devnull = open("/dev/null", O_RDONLY);
    if (launch.landlock && launch.landlock->apply() != 0) fail(kLandlock, 124);
    dup2(sv[1], runner::kChannelFd);  // dup2 clears close-on-exec on the copy
    dup2(devnull, 0);
    dup2(out[1], 1);
    dup2(out[1], 2);
    // Nothing else of kforge's reaches the kernel: not the store, not a socket, not a key file
    // some library opened without O_CLOEXEC (the status pipe closes at exec).
    syscall(SYS_close_range, runner::kChannelFd + 1, status_fd - 1, 0);
    syscall(SYS_close_range, status_fd + 1, ~0U, 0);
    if (!cwd.empty() && chdir(cwd.c_str()) != 0) fail(kChdir, 126);
    execve(argv[0], argv.data(), envp.data());
    fail(kExec, 127);
  }
  close(status[1]);
  PreExecFailure failed;
  ssize_t got;
  do got = read(status[0], &failed, sizeof failed);
  while (got < 0 && errno == EINTR);
  close(status[0]);
  if (got == static_cast<ssize_t>(sizeof failed)) {
    close(sv[0]);
    close(sv[1]);
    close(out[0]);
    close(out[1]);
    waitpid(pid, nullptr, 0);
    const int step =
        failed.step >= 0 && failed.step < static_cast<int>(std::size(kSteps)) ? failed.step : kExec;
    return Error{fmt::format("starting {}: {} failed: {}", exe.string(), kSteps[step],
                             std::strerror(failed.err))};
  }
  close(sv[1]);
  close(out[1]);
  auto state = std::make_unique<State>();
  state->pid = pid;
  state->channel = sv[0];
  state->output_fd = out[0];
  State* raw = state.get();
  state->reader = std::thread([raw] {
    char buf[4096];
    for (;;) {
      ssize_t n = read(raw->output_fd, buf, sizeof buf);
      if (n <= 0) break;
      std::lock_guard lock(raw->mu);
      if (raw->output.size() < (64u << 10)) raw->output.append(buf, static_cast<std::size_t>(n));
    }
  });
  return RunnerProcess(std::move(state));
}

bool RunnerProcess::send(const nlohmann::json& body, const std::vector<int>& fds) {
  return runner::send_message(s_->channel, body, fds);
}

bool RunnerProcess::message_waiting() const {
  pollfd p{s_->channel, POLLIN, 0};
  return poll(&p, 1, 0) > 0 && (p.revents & POLLIN);
}

Result<runner::Message> RunnerProcess::receive(std::chrono::steady_clock::time_point deadline) {
  return runner::receive_message(s_->channel, deadline);
}

RunnerExit RunnerProcess::wait(std::chrono::steady_clock::time_point deadline) {
  if (s_->reaped) return s_->exit;
  int status = 0;
  for (;;) {
    pid_t r = waitpid(s_->pid, &status, WNOHANG);
    if (r == s_->pid) break;
    if (std::chrono::steady_clock::now() >= deadline) {
      ::kill(-s_->pid, SIGKILL);
      waitpid(s_->pid, &status, 0);
      break;
    }
    usleep(1000);
  }
  s_->reaped = true;
  if (WIFEXITED(status))
    s_->exit = {true, WEXITSTATUS(status), 0};
  else if (WIFSIGNALED(status))
    s_->exit = {false, 0, WTERMSIG(status)};
  return s_->exit;
}

std::optional<RunnerExit> RunnerProcess::poll_exit() {
  if (s_->reaped) return s_->exit;
  int status = 0;
  if (waitpid(s_->pid, &status, WNOHANG) != s_->pid) return std::nullopt;
  s_->reaped = true;
  if (WIFEXITED(status))
    s_->exit = {true, WEXITSTATUS(status), 0};
  else if (WIFSIGNALED(status))
    s_->exit = {false, 0, WTERMSIG(status)};
  return s_->exit;
}

int RunnerProcess::pid() const { return s_->pid; }

void RunnerProcess::kill() {
  if (s_ && s_->pid > 0 && !s_->reaped) ::kill(-s_->pid, SIGKILL);
}

std::string RunnerProcess::output() const {
  std::lock_guard lock(s_->mu);
  return core::valid_utf8(s_->output);  // a kernel may print any bytes, or be cut mid-character
}

RunnerProcess::~RunnerProcess() {
  if (!s_) return;
  if (!s_->reaped) {
    ::kill(-s_->pid, SIGKILL);
    int status;
    waitpid(s_->pid, &status, 0);
  }
  close(s_->channel);
  if (s_->reader.joinable()) s_->reader.join();
  close(s_->output_fd);
}

}  // namespace kforge::eval
