// The machine lock's two levels (threads of this process, kforge processes) and its bookkeeping.
#include "kforge/eval/machine_lock.h"

#include <fmt/format.h>
#include <time.h>

namespace kforge::eval {

double monotonic_seconds() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + ts.tv_nsec * 1e-9;
}

MachineLock::MachineLock(ProcessLock across) : across_(std::move(across)) {}

MachineLock::Shared& MachineLock::Shared::operator=(Shared&& o) noexcept {
  if (this != &o) {
    unlock();
    local_ = std::move(o.local_);
    owner_ = std::exchange(o.owner_, nullptr);
  }
  return *this;
}

void MachineLock::Shared::unlock() {
  if (auto* owner = std::exchange(owner_, nullptr)) owner->leave_process_share();
  if (local_.owns_lock()) local_.unlock();
}

MachineLock::Exclusive& MachineLock::Exclusive::operator=(Exclusive&& o) noexcept {
  if (this != &o) {
    unlock();
    contention = std::move(o.contention);
    local_ = std::move(o.local_);
    owner_ = std::exchange(o.owner_, nullptr);
  }
  return *this;
}

void MachineLock::Exclusive::unlock() {
  if (auto* owner = std::exchange(owner_, nullptr)) owner->across_->unlock();
  if (local_.owns_lock()) local_.unlock();
}

// The first sharer of this process takes the file lock shared, the last lets it go. A sharer that
// joins a hold already there first passes the turnstile: a process waiting to measure is let in
// once the current holders finish, however many threads keep sharing here. (Passing it without
// across_mu_: a sharer waiting there must not stop the current holders from leaving.)
void MachineLock::join_process_share() {
  bool joining;
  {
    std::lock_guard g(across_mu_);
    joining = process_shares_ > 0;
  }
  if (joining) across_->pass_turnstile();
  std::lock_guard g(across_mu_);
  if (process_shares_++ == 0) process_share_held_ = across_->lock_shared();
}

void MachineLock::leave_process_share() {
  std::lock_guard g(across_mu_);
  if (--process_shares_ == 0 && std::exchange(process_share_held_, false)) across_->unlock();
}

MachineLock::Shared MachineLock::share() {
  Shared s;
  s.local_ = std::shared_lock<std::shared_mutex>(machine_);
  if (across_) {
    join_process_share();
    s.owner_ = this;
  }
  return s;
}

MachineLock::Exclusive MachineLock::measure() {
  double start = monotonic_seconds();
  Exclusive x;
  x.local_ = std::unique_lock<std::shared_mutex>(machine_);
  // No thread of this process shares now (the local lock is exclusive): the file lock is free of
  // us.
  if (across_) {
    if (across_->lock_exclusive())
      x.owner_ = this;
    else
      x.contention = fmt::format(
          "another kforge process{} held the machine for more than the wait bound: measured beside "
          "it",
          across_->holder() ? fmt::format(" (pid {})", *across_->holder()) : "");
  }
  std::lock_guard g(stats_);
  waited_ += monotonic_seconds() - start;
  return x;
}

void MachineLock::record(Window w) {
  std::lock_guard g(stats_);
  windows_.push_back(w);
}

double MachineLock::waited_seconds() const {
  std::lock_guard g(stats_);
  return waited_;
}

std::vector<MachineLock::Window> MachineLock::windows() const {
  std::lock_guard g(stats_);
  return windows_;
}

}  // namespace kforge::eval
