// The bounded wait for a quiet machine before a timing.
#include "kforge/eval/quiet_wait.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "kforge/eval/machine_lock.h"

namespace kforge::eval {
namespace {

// Busy for this timing, leaving oversubscription aside: judged as if the threads fit the CPUs.
LoadVerdict outside_load(const std::vector<LoadSample>& samples, int threads) {
  int cpus = 1;
  for (const auto& s : samples) cpus = std::max(cpus, s.cpus);
  return judge_load(samples, std::min(threads, cpus));
}

}  // namespace

nlohmann::json QuietWait::to_json() const {
  return {{"busy_before", busy_before},
          {"quiet_after", quiet},
          {"waited_s", waited_s},
          {"bound_s", bound_s},
          {"reason", reason}};
}

double QuietWaiter::current_bound() {
  std::lock_guard lock(mu_);
  return persistently_busy_ ? max_wait_s_ / 4 : max_wait_s_;
}

void QuietWaiter::note(const QuietWait& w) {
  std::lock_guard lock(mu_);
  persistently_busy_ = !w.quiet && w.busy_before && w.bound_s > 0;
}

QuietWait QuietWaiter::wait(int threads, const QuietWaitProbe& probe,
                            const std::function<void(std::string_view)>& progress,
                            std::vector<LoadSample> taken) {
  QuietWait w;
  w.bound_s = current_bound();
  auto say = [&](const std::string& m) {
    if (progress)
      progress(m);
    else if (progress_)
      progress_(m);
  };
  const double start = probe.now();
  w.samples = std::move(taken);
  auto verdict = outside_load(w.samples, threads);
  if (w.samples.empty() || verdict.busy) {
    w.samples = probe.sample();
    verdict = outside_load(w.samples, threads);
  }
  w.busy_before = verdict.busy;
  w.quiet = !verdict.busy;
  w.reason = verdict.reason;
  if (w.quiet) note(w);  // quiet again: the full bound returns
  if (w.quiet || w.bound_s <= 0) return w;
  say(fmt::format(
      "machine busy ({}): waiting up to {:.0f} s for quiet{}", verdict.reason, w.bound_s,
      bound_setting_.empty() ? ""
                             : fmt::format(" ({} sets the bound; 0: no wait)", bound_setting_)));
  auto cancelled = [this] { return cancel_ && cancel_->load(); };
  while (!w.quiet && probe.now() - start < w.bound_s && !cancelled()) {
    probe.sleep(std::min(poll_s_,
                         w.bound_s - (probe.now() - start)));  // a bound under one poll still waits
    w.samples = probe.sample();
    w.quiet = !outside_load(w.samples, threads).busy;
  }
  w.waited_s = probe.now() - start;
  if (cancelled()) return w;  // no timing follows: nothing to say of the machine
  say(w.quiet ? fmt::format("machine quiet after {:.0f} s: timing", w.waited_s)
              : fmt::format(
                    "machine still busy after {:.0f} s: timing anyway, the result is marked busy",
                    w.waited_s));
  note(w);
  return w;
}

QuietWait QuietWaiter::wait(int threads, std::vector<pid_t> watched,
                            const std::function<void(std::string_view)>& progress,
                            std::vector<LoadSample> taken) {
  std::erase(watched, -1);
  LoadProbe probe;
  QuietWaitProbe real{
      [&] { return probe.sample_for(0.3, 0.05, watched); },
      [](double s) { std::this_thread::sleep_for(std::chrono::duration<double>(s)); },
      [] { return monotonic_seconds(); }};
  return wait(threads, real, progress, std::move(taken));
}

}  // namespace kforge::eval
