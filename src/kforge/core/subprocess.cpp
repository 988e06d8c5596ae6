// fork/exec with poll-driven capture and a process-group kill on timeout. Everything the child
// needs (argv, environment, resolved program, Landlock ruleset, limits) is built before fork;
// between fork and exec the child makes only async-signal-safe calls, since kforge forks from
// multi-threaded code. A failure there travels back on a close-on-exec status pipe.
#include "kforge/core/subprocess.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

extern char** environ;

namespace kforge::core {

std::string ProcessResult::describe() const {
  if (spawn_failed) return "could not start: " + err;
  if (timed_out) return fmt::format("timed out after {:.1f} s", wall_ms / 1000.0);
  if (signal) return fmt::format("killed by signal {} ({})", signal, strsignal(signal));
  return fmt::format("exit status {}", exit_code);
}

namespace {

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

void append_capped(std::string& s, const char* data, std::size_t n, std::size_t limit) {
  if (s.size() >= limit) return;
  s.append(data, std::min(n, limit - s.size()));
}

std::string_view env_name(std::string_view entry) { return entry.substr(0, entry.find('=')); }

// The child's environment: clean_env or kforge's own, then extra_env replacing same-named entries.
std::vector<std::string> child_environment(const ProcessOptions& options) {
  std::vector<std::string> env;
  if (options.clean_env)
    env = *options.clean_env;
  else
    for (char** e = environ; *e; ++e) env.emplace_back(*e);
  for (const auto& extra : options.extra_env) {
    std::erase_if(env, [&](const std::string& e) { return env_name(e) == env_name(extra); });
    env.push_back(extra);
  }
  return env;
}

// A bare program name is looked up on the child's PATH here, in the parent: execvpe would
// search kforge's PATH instead, and allocates.
Result<std::string> resolve_program(const std::string& name, const std::vector<std::string>& env) {
  if (name.find('/') != std::string::npos) return name;
  std::string path = "/usr/bin:/bin";
  for (const auto& e : env)
    if (env_name(e) == "PATH") path = e.substr(5);
  for (std::size_t start = 0; start <= path.size();) {
    std::size_t end = std::min(path.find(':', start), path.size());
    std::string dir = path.substr(start, end - start);
    std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    struct stat st {};
    if (stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        access(candidate.c_str(), X_OK) == 0)
      return candidate;
    start = end + 1;
  }
  return Error{fmt::format("cannot find '{}' on PATH ({})", name, path)};
}

// What the child does between fork and exec, all prepared by the parent.
struct ChildPlan {
  const char* program;
  char* const* argv;
  char* const* envp;
  const char* cwd;  // null: inherit
  int stdin_fd, stdout_fd, stderr_fd, status_fd;
  pid_t parent;
  int max_fd;  // RLIMIT_NOFILE: where the fallback for kernels without close_range stops
  bool die_with_parent;
  const ProcessLimits* limits;
  const LandlockRuleset* landlock;  // null: unconfined
};

enum class ChildStage : int { pdeathsig, chdir, rlimit, landlock, close_fds, exec };

const char* stage_name(ChildStage stage) {
  switch (stage) {
    case ChildStage::pdeathsig:
      return "prctl(PR_SET_PDEATHSIG)";
    case ChildStage::chdir:
      return "chdir";
    case ChildStage::rlimit:
      return "setrlimit";
    case ChildStage::landlock:
      return "landlock_restrict_self";
    case ChildStage::close_fds:
      return "close_range";
    case ChildStage::exec:
      return "execve";
  }
  return "?";
}

struct ChildFailure {
  ChildStage stage;
  int error;
};

[[noreturn]] void child_fail(const ChildPlan& plan, ChildStage stage, int error) {
  ChildFailure f{stage, error};
  // The forked child can only exit: if the parent cannot be told why, it sees exit 127 alone.
  (void)!write(plan.status_fd, &f, sizeof f);
  _exit(127);
}

int open_files_limit() {
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) != 0 || lim.rlim_cur == RLIM_INFINITY ||
      lim.rlim_cur > (1U << 20))
    return 1 << 20;
  return static_cast<int>(lim.rlim_cur);
}

bool set_limit(int resource, std::uint64_t value) {
  rlimit lim{static_cast<rlim_t>(value), static_cast<rlim_t>(value)};
  return setrlimit(resource, &lim) == 0;
}

// Async-signal-safe from here to execve: system calls only, no allocation, no locks.
[[noreturn]] void run_child(const ChildPlan& plan) {
  setpgid(0, 0);
  if (plan.die_with_parent) {
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) child_fail(plan, ChildStage::pdeathsig, errno);
    if (getppid() != plan.parent) _exit(127);  // the parent died before the line above: too late
  }
  // kforge's own signal settings (an ignored SIGPIPE, a blocked SIGINT) are not the child's; the
  // default SIGXFSZ action is what makes RLIMIT_FSIZE stop a writer.
  signal(SIGPIPE, SIG_DFL);
  signal(SIGXFSZ, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  dup2(plan.stdin_fd, 0);
  dup2(plan.stdout_fd, 1);
  dup2(plan.stderr_fd, 2);
  if (plan.cwd && chdir(plan.cwd) != 0) child_fail(plan, ChildStage::chdir, errno);
  if (plan.limits->file_size && !set_limit(RLIMIT_FSIZE, plan.limits->file_size))
    child_fail(plan, ChildStage::rlimit, errno);
  if (plan.limits->address_space && !set_limit(RLIMIT_AS, plan.limits->address_space))
    child_fail(plan, ChildStage::rlimit, errno);
  if (!plan.limits->core_dumps && !set_limit(RLIMIT_CORE, 0))
    child_fail(plan, ChildStage::rlimit, errno);
  if (plan.landlock)
    if (int e = plan.landlock->apply(); e != 0) child_fail(plan, ChildStage::landlock, e);
  // No inherited descriptor beyond 0-2 reaches the program (kforge's sockets, cache files, the
  // other children's pipes). Marked close-on-exec rather than closed, so the status pipe stays
  // open until execve succeeds; the effect on the program is the same.
  if (syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) != 0) {
    if (errno != ENOSYS && errno != EINVAL) child_fail(plan, ChildStage::close_fds, errno);
    for (int fd = 3; fd < plan.max_fd; ++fd) fcntl(fd, F_SETFD, FD_CLOEXEC);  // Linux < 5.11
  }
  execve(plan.program, plan.argv, plan.envp);
  child_fail(plan, ChildStage::exec, errno);
}

// Waits for the child to exec (the status pipe closes) or to report why it could not.
std::optional<ChildFailure> await_exec(int status_fd) {
  ChildFailure f{};
  ssize_t n;
  while ((n = read(status_fd, &f, sizeof f)) < 0 && errno == EINTR) {
  }
  if (n == static_cast<ssize_t>(sizeof f)) return f;
  return std::nullopt;
}

// Everything the child needs, built before fork, where allocating and failing are allowed.
struct Launch {
  std::vector<std::string> env, argv;
  std::string program;
  std::optional<LandlockRuleset> landlock;  // unset: unconfined
  int landlock_abi = 0;
  std::vector<char*> envp, args;  // point into env and argv: filled once the Launch stays put

  void point() {
    for (auto& e : env) envp.push_back(e.data());
    envp.push_back(nullptr);
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
  }
};

Result<Launch> prepare_launch(const std::vector<std::string>& argv, const ProcessOptions& options) {
  Launch launch{.env = child_environment(options), .argv = argv};
  auto program = resolve_program(argv.at(0), launch.env);
  if (!program) return program.error();
  launch.program = std::move(*program);
  if (options.landlock) {
    auto prepared = LandlockRuleset::prepare(*options.landlock);
    if (!prepared) return with_context(prepared.error(), "preparing the Landlock sandbox");
    launch.landlock_abi = prepared->abi();
    if (prepared->abi() > 0) launch.landlock.emplace(std::move(*prepared));
  }
  return launch;
}

}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options) {
  ProcessResult result;
  auto spawn_failure = [&](std::string message) {
    result.spawn_failed = true;
    result.err = std::move(message);
    return result;
  };
  auto launch = prepare_launch(argv, options);
  if (!launch) return spawn_failure(launch.error().message);
  launch->point();
  result.landlock_abi = launch->landlock_abi;

  int out_pipe[2], err_pipe[2], in_pipe[2], status_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) || pipe2(err_pipe, O_CLOEXEC) || pipe2(in_pipe, O_CLOEXEC) ||
      pipe2(status_pipe, O_CLOEXEC))
    return spawn_failure(std::strerror(errno));
  ChildPlan plan{launch->program.c_str(),
                 launch->args.data(),
                 launch->envp.data(),
                 options.cwd.empty() ? nullptr : options.cwd.c_str(),
                 in_pipe[0],
                 out_pipe[1],
                 err_pipe[1],
                 status_pipe[1],
                 getpid(),
                 open_files_limit(),
                 options.die_with_parent,
                 &options.limits,
                 launch->landlock ? &*launch->landlock : nullptr};

  auto start = std::chrono::steady_clock::now();
  pid_t pid = fork();
  if (pid < 0) {
    for (int fd : {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1], in_pipe[0], in_pipe[1],
                   status_pipe[0], status_pipe[1]})
      close(fd);
    return spawn_failure(std::strerror(errno));
  }
  if (pid == 0) run_child(plan);
  setpgid(pid, pid);
  close(out_pipe[1]);
  close(err_pipe[1]);
  close(in_pipe[0]);
  close(status_pipe[1]);
  auto failure = await_exec(status_pipe[0]);
  close(status_pipe[0]);
  if (failure) {
    for (int fd : {out_pipe[0], err_pipe[0], in_pipe[1]}) close(fd);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    const char* what = failure->stage == ChildStage::chdir  ? options.cwd.c_str()
                       : failure->stage == ChildStage::exec ? launch->program.c_str()
                                                            : "";
    return spawn_failure(fmt::format("{}{}{}: {}", stage_name(failure->stage), *what ? " " : "",
                                     what, std::strerror(failure->error)));
  }
  if (options.stdin_data) {
    // Small payloads only (requests, job descriptions): fits the pipe buffer or is read promptly.
    const std::string& data = *options.stdin_data;
    std::size_t off = 0;
    signal(SIGPIPE, SIG_IGN);
    while (off < data.size()) {
      ssize_t n = write(in_pipe[1], data.data() + off, data.size() - off);
      if (n <= 0) break;
      off += static_cast<std::size_t>(n);
    }
  }
  close(in_pipe[1]);

  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  int open_streams = 2;
  char buf[65536];
  auto deadline = start + options.timeout;
  int status = 0;
  bool reaped = false;
  // Runs until both streams are closed and the child is reaped, or the deadline passes: a child
  // that closes its output and keeps running still times out.
  while (open_streams > 0 || !reaped) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline - std::chrono::steady_clock::now())
                    .count();
    if (left <= 0) {
      result.timed_out = true;
      kill(-pid, SIGKILL);
      break;
    }
    if (options.cancel && options.cancel->load()) {
      result.cancelled = true;
      kill(-pid, SIGKILL);
      break;
    }
    if (options.cancel) left = std::min<long long>(left, 50);  // look at the flag often
    if (open_streams == 0) {
      pid_t w = waitpid(pid, &status, WNOHANG);
      if (w == pid)
        reaped = true;
      else
        usleep(static_cast<useconds_t>(std::min<long long>(left, 5) * 1000));
      continue;
    }
    int r = poll(fds, 2, static_cast<int>(std::min<long long>(left, 1000)));
    if (r < 0 && errno == EINTR) continue;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n > 0)
        append_capped(i == 0 ? result.out : result.err, buf, static_cast<std::size_t>(n),
                      options.capture_limit);
      else {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_streams;
      }
    }
  }
  for (auto& f : fds)
    if (f.fd >= 0) close(f.fd);
  if (!reaped)
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  kill(-pid, SIGKILL);  // anything the child left behind in its group
  result.wall_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (WIFEXITED(status)) {
    result.exited = true;
    result.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
  }
  return result;
}

}  // namespace kforge::core
