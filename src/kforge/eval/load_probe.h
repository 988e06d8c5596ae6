#pragma once
// How much of the machine is taken by work that is not kforge's: runnable tasks (/proc/stat's
// procs_running less kforge's own running threads), CPU time stolen by the hypervisor, and the
// load average. A timing or a peak measured while others run is slower than the machine is, so
// every one carries the samples taken around it and a `busy` judgement with its reason.

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace kforge::eval {

// The fields of /proc/stat that matter here: the aggregate cpu line and procs_running.
struct ProcStat {
  std::uint64_t busy_ticks = 0, idle_ticks = 0, steal_ticks = 0;  // since boot, all CPUs together
  int procs_running = 0;  // runnable now, the reader included
};
std::optional<ProcStat> parse_proc_stat(std::string_view text);
// The state letter of /proc/<pid>/task/<tid>/stat ('R' running, 'S' sleeping, …); 0 when malformed.
char parse_task_state(std::string_view stat_line);

struct LoadSample {
  double at = 0;            // CLOCK_MONOTONIC seconds
  double load_1min = 0;     // /proc/loadavg
  int procs_running = 0;    // machine-wide runnable tasks
  int own_running = 0;      // of them, threads of kforge and of the processes it watches
  int outside_running = 0;  // procs_running − own_running
  double steal = 0;         // stolen share of CPU time since the previous sample (0 on the first)
  int cpus = 0;             // CPUs this process may run on
};

// What the samples around a measurement say: busy (with why) when the work outside kforge needed
// CPUs that the measurement's `threads` wanted, or the hypervisor took more than `max_steal`.
struct LoadVerdict {
  bool busy = false;
  std::string reason;          // "" when quiet
  double outside_running = 0;  // the mean over the samples
  double steal = 0;            // the largest stolen share over the samples
  double load_1min = 0;        // the largest load average seen
};
LoadVerdict judge_load(const std::vector<LoadSample>& samples, int threads,
                       double max_steal = 0.05);

// Samples /proc; keeps the previous /proc/stat to turn tick counters into shares. `watched`
// are processes whose running threads count as kforge's own (the kernel processes it times).
class LoadProbe {
 public:
  LoadSample sample(const std::vector<pid_t>& watched = {});
  // Several samples `interval_s` apart: procs_running is an instant, a few make a mean.
  std::vector<LoadSample> sample_for(double seconds, double interval_s = 0.05,
                                     const std::vector<pid_t>& watched = {});

 private:
  std::optional<ProcStat> previous_;
};

// Running threads of a process (0 when it is gone).
int running_threads(pid_t pid);
// CPUs this process may run on (its affinity mask), at least 1.
int usable_cpus();

nlohmann::json to_json(const LoadSample& s);
nlohmann::json to_json(const LoadVerdict& v);
LoadSample load_sample_from_json(const nlohmann::json& j);

}  // namespace kforge::eval
