#pragma once
// The machine lock across processes: two kforge processes of a user (any working directory) never
// time at once. flock(2) on a file in the per-user cache: exclusive around a measurement, shared
// around compile and check work; the kernel drops a dead holder's lock, so nothing goes stale.
// A second file is a turnstile: a process waiting to measure holds it, which stops new shared
// holders from slipping in ahead, so a stream of compiles cannot starve a timing. The exclusive
// holder writes its pid into the lock file for the messages of those who wait. Waits are bounded:
// past the bound the caller goes on without the lock and says so (a timing is then marked busy).

#include <sys/types.h>

#include <atomic>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "kforge/core/result.h"

namespace kforge::eval {

struct ProcessLockOptions {
  std::filesystem::path file;                     // e.g. <user cache>/machine.lock
  double wait_bound_s = 600;                      // then proceed without the lock
  std::function<void(std::string_view)> on_wait;  // told once per wait, with whom it waits for
  // What sets wait_bound_s, named in the waiting line so a user knows how to shorten the wait.
  std::string bound_setting = "KFORGE_LOCK_WAIT_S";
  // Ctrl-C: a wait ends (unlocked, as past its bound) within a poll once this turns true.
  const std::atomic<bool>* cancel = nullptr;
};

class ProcessLock {
 public:
  static Result<ProcessLock> open(ProcessLockOptions options);
  ProcessLock(ProcessLock&& other) noexcept;
  ProcessLock& operator=(ProcessLock&&) = delete;
  ~ProcessLock();

  // True when held; false when the bound passed first (the caller proceeds unlocked).
  bool lock_shared();
  bool lock_exclusive();
  void unlock();
  // Blocks (bounded) while a process waits to measure: for shared work that piggybacks on a shared
  // hold this process already has.
  void pass_turnstile();

  // The pid the exclusive holder wrote, if any.
  std::optional<pid_t> holder() const;
  const std::filesystem::path& file() const { return options_.file; }

 private:
  explicit ProcessLock(ProcessLockOptions options) : options_(std::move(options)) {}
  // flock(op | LOCK_NB) until it succeeds or `deadline` (monotonic seconds) passes.
  bool poll_lock(int fd, int op, double deadline, const char* waiting_for);

  ProcessLockOptions options_;
  int fd_ = -1, turnstile_fd_ = -1;
  bool exclusive_ = false;
};

}  // namespace kforge::eval
