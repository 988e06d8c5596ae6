#pragma once
// One measurement at a time on the machine. Timing (and profiling) takes the machine exclusively;
// compiling, checking and computing references share it, so a parallel search can overlap model
// calls and compiles without any of them running during someone's timed window. Given a
// ProcessLock, the same holds across kforge processes: this process holds the file lock shared
// while any of its threads shares, exclusively while one measures. The lock keeps the windows and
// the time spent waiting, for reports and tests.

#include <chrono>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <vector>

#include "kforge/eval/process_lock.h"

namespace kforge::eval {

class MachineLock {
 public:
  struct Window {
    double start = 0, end = 0;  // CLOCK_MONOTONIC seconds
  };

  // A hold on the machine for work that may run beside other such work.
  class Shared {
   public:
    Shared() = default;
    Shared(Shared&& o) noexcept
        : local_(std::move(o.local_)), owner_(std::exchange(o.owner_, nullptr)) {}
    Shared& operator=(Shared&& o) noexcept;
    ~Shared() { unlock(); }
    bool owns_lock() const { return local_.owns_lock(); }
    void unlock();

   private:
    friend class MachineLock;
    std::shared_lock<std::shared_mutex> local_;
    MachineLock* owner_ = nullptr;  // set while this hold counts toward the process-wide share
  };

  // The machine alone, for a measurement. `contention` says why it is not quite alone: another
  // kforge process held the machine past the wait bound, so this one measured without it.
  class Exclusive {
   public:
    Exclusive() = default;
    Exclusive(Exclusive&& o) noexcept
        : contention(std::move(o.contention)),
          local_(std::move(o.local_)),
          owner_(std::exchange(o.owner_, nullptr)) {}
    Exclusive& operator=(Exclusive&& o) noexcept;
    ~Exclusive() { unlock(); }
    bool owns_lock() const { return local_.owns_lock(); }
    void unlock();
    std::string contention;  // "" when this process had the machine to itself

   private:
    friend class MachineLock;
    std::unique_lock<std::shared_mutex> local_;
    MachineLock* owner_ = nullptr;  // set while the process lock is held exclusively
  };

  MachineLock() = default;                   // this process only
  explicit MachineLock(ProcessLock across);  // and every kforge process of this user
  MachineLock(const MachineLock&) = delete;
  MachineLock& operator=(const MachineLock&) = delete;

  // For work that may run alongside other such work, but not during a measurement.
  Shared share();
  // For a measurement: waits until nothing else holds the machine. Call record(window) after.
  Exclusive measure();
  void record(Window w);

  double waited_seconds() const;  // total time spent waiting in measure()
  std::vector<Window> windows() const;

 private:
  void join_process_share();
  void leave_process_share();

  std::shared_mutex machine_;
  std::optional<ProcessLock> across_;
  std::mutex across_mu_;  // guards the process-wide share count and the file lock's state
  int process_shares_ = 0;
  bool process_share_held_ = false;  // false when the bound passed before the file lock was had
  mutable std::mutex stats_;
  double waited_ = 0;
  std::vector<Window> windows_;
};

double monotonic_seconds();

}  // namespace kforge::eval
