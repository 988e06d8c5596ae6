// flock on two files (the lock and its turnstile), polled so every wait has a bound.
#include "kforge/eval/process_lock.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>
#include <utility>

#include "kforge/core/fs.h"
#include "kforge/eval/machine_lock.h"

namespace kforge::eval {
namespace {

Result<int> open_lock_file(const std::filesystem::path& file) {
  int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return Error{fmt::format("machine lock {}: {}", file.string(), std::strerror(errno))};
  return fd;
}

void write_pid(int fd) {
  auto text = fmt::format("{}\n", ::getpid());
  // The pid only names the holder in a waiter's message; the lock is the flock, not this text.
  if (::ftruncate(fd, 0) == 0) (void)!::pwrite(fd, text.data(), text.size(), 0);
}

std::optional<pid_t> read_pid(int fd) {
  char buf[32] = {};
  ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  if (n <= 0) return std::nullopt;
  long pid = std::strtol(buf, nullptr, 10);
  return pid > 0 ? std::optional<pid_t>(static_cast<pid_t>(pid)) : std::nullopt;
}

}  // namespace

Result<ProcessLock> ProcessLock::open(ProcessLockOptions options) {
  if (auto st = core::ensure_dir(options.file.parent_path()); !st)
    return Error{"machine lock: " + st.error().message};
  ProcessLock lock(std::move(options));
  auto fd = open_lock_file(lock.options_.file);
  if (!fd) return fd.error();
  lock.fd_ = *fd;
  auto turnstile = open_lock_file(lock.options_.file.string() + ".queue");
  if (!turnstile) return turnstile.error();
  lock.turnstile_fd_ = *turnstile;
  return lock;
}

ProcessLock::ProcessLock(ProcessLock&& other) noexcept
    : options_(std::move(other.options_)),
      fd_(std::exchange(other.fd_, -1)),
      turnstile_fd_(std::exchange(other.turnstile_fd_, -1)),
      exclusive_(std::exchange(other.exclusive_, false)) {}

ProcessLock::~ProcessLock() {
  if (fd_ >= 0) ::close(fd_);
  if (turnstile_fd_ >= 0) ::close(turnstile_fd_);
}

bool ProcessLock::poll_lock(int fd, int op, double deadline, const char* waiting_for) {
  bool told = false;
  for (double pause = 0.005;; pause = std::min(0.1, pause * 2)) {
    if (::flock(fd, op | LOCK_NB) == 0) return true;
    if (errno != EWOULDBLOCK && errno != EINTR) return false;
    if (monotonic_seconds() >= deadline) return false;
    if (options_.cancel && options_.cancel->load()) return false;
    if (!told && options_.on_wait) {
      auto pid = read_pid(fd);
      options_.on_wait(fmt::format(
          "waiting for another kforge process to finish {}{} (at most {:.0f} s more{})",
          waiting_for, pid ? fmt::format(" (pid {})", *pid) : "", deadline - monotonic_seconds(),
          options_.bound_setting.empty()
              ? ""
              : fmt::format("; {} sets the bound", options_.bound_setting)));
      told = true;
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(pause));
  }
}

void ProcessLock::pass_turnstile() {
  if (poll_lock(turnstile_fd_, LOCK_SH, monotonic_seconds() + options_.wait_bound_s, "timing"))
    ::flock(turnstile_fd_, LOCK_UN);
}

bool ProcessLock::lock_shared() {
  const double deadline = monotonic_seconds() + options_.wait_bound_s;
  if (poll_lock(turnstile_fd_, LOCK_SH, deadline, "timing")) ::flock(turnstile_fd_, LOCK_UN);
  return poll_lock(fd_, LOCK_SH, deadline, "timing");
}

bool ProcessLock::lock_exclusive() {
  const double deadline = monotonic_seconds() + options_.wait_bound_s;
  // In the turnstile first: from here on no new shared holder gets in, the current ones drain.
  const bool queued = poll_lock(turnstile_fd_, LOCK_EX, deadline, "timing");
  if (queued) write_pid(turnstile_fd_);
  const bool held = poll_lock(fd_, LOCK_EX, deadline, "its work on the machine");
  if (held) write_pid(fd_);
  exclusive_ = held;
  if (queued) {
    // A stale pid there only words a waiter's message wrongly.
    (void)!::ftruncate(turnstile_fd_, 0);
    ::flock(turnstile_fd_, LOCK_UN);
  }
  return held;
}

void ProcessLock::unlock() {
  // Only the exclusive holder wrote its pid, and only it may erase it.
  if (std::exchange(exclusive_, false))
    (void)!::ftruncate(fd_, 0);  // likewise: the flock below is what frees it
  ::flock(fd_, LOCK_UN);
}

std::optional<pid_t> ProcessLock::holder() const { return read_pid(fd_); }

}  // namespace kforge::eval
