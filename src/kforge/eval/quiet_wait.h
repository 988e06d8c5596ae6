#pragma once
// Before a timing: when work outside kforge keeps the machine busy, wait a bounded time for it to
// quieten (probing again every second), then measure either way. A timing taken busy is marked so
// (evaluate's load verdict); the wait only gives it the chance to be taken quiet.
//
// The bound shrinks while the machine stays busy: after one wait that ended busy, the next waits
// of this process get a quarter of it until a probe finds the machine quiet again. On a machine
// that is never quiet an auto run does not pay the full wait before each of its dozens of timings.

#include <sys/types.h>

#include <atomic>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "kforge/eval/load_probe.h"

namespace kforge::eval {

// What one wait saw.
struct QuietWait {
  bool busy_before = false;         // the first probe found the machine busy
  bool quiet = true;                // the last probe found it quiet
  double waited_s = 0;              // time spent waiting (0 when it was quiet at once)
  double bound_s = 0;               // the bound this wait had
  std::string reason;               // the busy reason of the first probe ("" when quiet)
  std::vector<LoadSample> samples;  // the last probe's: the load just before the timing
  nlohmann::json to_json() const;
};

struct QuietWaitProbe {
  // A few load samples now (LoadProbe::sample_for in the real thing, made-up ones in tests).
  std::function<std::vector<LoadSample>()> sample;
  std::function<void(double seconds)> sleep;  // between probes
  std::function<double()> now;                // monotonic seconds
};

class QuietWaiter {
 public:
  // `max_wait_s` 0 waits never (the machine is probed once, for the record). `progress` tells the
  // wait when a call gives no progress function of its own.
  explicit QuietWaiter(double max_wait_s, std::function<void(std::string_view)> progress = nullptr,
                       double poll_s = 1.0)
      : max_wait_s_(max_wait_s), poll_s_(poll_s), progress_(std::move(progress)) {}

  // Waits while `threads` CPUs are not free of outside work, up to the current bound; says what it
  // does through `progress`. Oversubscription (more threads than CPUs) is not waited for: no
  // outside quiet can cure it, and it is reported by the load verdict. `taken`: samples probed
  // just before (while the kernels loaded, the machine already held): quiet, they are the first
  // probe and no other is taken; busy, they may have seen kforge's own start, and a fresh probe
  // decides.
  QuietWait wait(int threads, const QuietWaitProbe& probe,
                 const std::function<void(std::string_view)>& progress,
                 std::vector<LoadSample> taken = {});
  // The same with the real /proc probe; `watched` are kforge's kernel processes (their threads are
  // kforge's own; -1 is skipped).
  QuietWait wait(int threads, std::vector<pid_t> watched,
                 const std::function<void(std::string_view)>& progress,
                 std::vector<LoadSample> taken = {});

  double max_wait_s() const { return max_wait_s_; }
  // What sets max_wait_s, named in the waiting line so a user knows how to shorten the wait.
  void set_bound_setting(std::string name) { bound_setting_ = std::move(name); }
  // Ctrl-C: a wait in progress ends at its next probe (within a poll) when it turns true.
  void set_cancel(const std::atomic<bool>* cancel) { cancel_ = cancel; }

 private:
  double current_bound();
  void note(const QuietWait& w);

  double max_wait_s_, poll_s_;
  std::function<void(std::string_view)> progress_;
  std::string bound_setting_ = "KFORGE_QUIET_WAIT_S";
  const std::atomic<bool>* cancel_ = nullptr;
  std::mutex mu_;
  bool persistently_busy_ = false;  // the last wait ended busy: the next bound is a quarter
};

}  // namespace kforge::eval
