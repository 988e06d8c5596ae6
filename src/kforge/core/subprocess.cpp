// fork/exec with poll-driven capture and a process-group kill on timeout.
#include "kforge/core/subprocess.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
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

void append_capped(std::string& s, const char* data, std::size_t n, std::size_t limit) {
  if (s.size() >= limit) return;
  s.append(data, std::min(n, limit - s.size()));
}

}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options) {
  ProcessResult result;
  int out_pipe[2], err_pipe[2], in_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) || pipe2(err_pipe, O_CLOEXEC) || pipe2(in_pipe, O_CLOEXEC)) {
    result.spawn_failed = true;
    result.err = std::strerror(errno);
    return result;
  }
  std::vector<std::string> env_strings;
  for (char** e = environ; *e; ++e) env_strings.emplace_back(*e);
  for (const auto& e : options.extra_env) env_strings.push_back(e);
  std::vector<char*> envp, args;
  for (auto& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_copy = argv;
  for (auto& a : argv_copy) args.push_back(a.data());
  args.push_back(nullptr);

  auto start = std::chrono::steady_clock::now();
  pid_t pid = fork();
  if (pid < 0) {
    result.spawn_failed = true;
    result.err = std::strerror(errno);
    return result;
  }
  if (pid == 0) {
    setpgid(0, 0);
    dup2(in_pipe[0], 0);
    dup2(out_pipe[1], 1);
    dup2(err_pipe[1], 2);
    if (!options.cwd.empty() && chdir(options.cwd.c_str()) != 0) _exit(126);
    execve(args[0], args.data(), envp.data());
    if (errno == ENOENT) execvpe(args[0], args.data(), envp.data());
    dprintf(2, "cannot execute %s: %s\n", args[0], std::strerror(errno));
    _exit(127);
  }
  setpgid(pid, pid);
  close(out_pipe[1]);
  close(err_pipe[1]);
  close(in_pipe[0]);
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
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
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
      if (w == pid) reaped = true;
      else usleep(static_cast<useconds_t>(std::min<long long>(left, 5) * 1000));
      continue;
    }
    int r = poll(fds, 2, static_cast<int>(std::min<long long>(left, 1000)));
    if (r < 0 && errno == EINTR) continue;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n > 0) append_capped(i == 0 ? result.out : result.err, buf, static_cast<std::size_t>(n), options.capture_limit);
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
  result.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (WIFEXITED(status)) {
    result.exited = true;
    result.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
  }
  return result;
}

}  // namespace kforge::core
