// /proc/stat, /proc/loadavg and /proc/<pid>/task read into load samples, and the busy judgement.
#include "kforge/eval/load_probe.h"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <thread>

#include "kforge/core/fs.h"
#include "kforge/eval/cpu_choice.h"
#include "kforge/eval/machine_lock.h"

namespace kforge::eval {

std::optional<ProcStat> parse_proc_stat(std::string_view text) {
  ProcStat s;
  bool have_cpu = false, have_running = false;
  std::istringstream in{std::string(text)};
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string key;
    words >> key;
    if (key == "cpu") {
      // user nice system idle iowait irq softirq steal [guest guest_nice]: guest time is already
      // counted in user and nice, so it is left out.
      std::uint64_t v[8] = {};
      for (auto& x : v) words >> x;
      if (!words) return std::nullopt;
      s.idle_ticks = v[3] + v[4];
      s.steal_ticks = v[7];
      s.busy_ticks = v[0] + v[1] + v[2] + v[5] + v[6];
      have_cpu = true;
    } else if (key == "procs_running") {
      words >> s.procs_running;
      have_running = static_cast<bool>(words);
    }
  }
  if (!have_cpu || !have_running) return std::nullopt;
  return s;
}

char parse_task_state(std::string_view stat_line) {
  // "1234 (name with ) or spaces) R 1 …": the name may hold anything, so look after its last ')'.
  auto close = stat_line.rfind(')');
  if (close == std::string_view::npos || close + 2 >= stat_line.size()) return 0;
  return stat_line[close + 2];
}

// Plain system calls: kernel processes' settling polls this every few milliseconds.
int running_threads(pid_t pid) {
  const std::string dir = fmt::format("/proc/{}/task", pid);
  DIR* d = ::opendir(dir.c_str());
  if (!d) return 0;
  int n = 0;
  while (dirent* entry = ::readdir(d)) {
    if (entry->d_name[0] == '.') continue;
    int fd = ::open(fmt::format("{}/{}/stat", dir, entry->d_name).c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    char buf[512];
    ssize_t len = ::read(fd, buf, sizeof buf);
    ::close(fd);
    if (len > 0 && parse_task_state(std::string_view(buf, static_cast<std::size_t>(len))) == 'R')
      ++n;
  }
  ::closedir(d);
  return n;
}

int usable_cpus() {
  if (auto cpus = allowed_cpus(); !cpus.empty()) return static_cast<int>(cpus.size());
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

LoadSample LoadProbe::sample(const std::vector<pid_t>& watched) {
  LoadSample s;
  s.at = monotonic_seconds();
  s.cpus = usable_cpus();
  {
    std::ifstream in("/proc/loadavg");
    in >> s.load_1min;
  }
  // Own threads first: this thread is running while it reads /proc/stat, and is counted there.
  s.own_running = running_threads(::getpid());
  for (pid_t p : watched) s.own_running += running_threads(p);
  auto text = core::read_text("/proc/stat");
  auto stat = text ? parse_proc_stat(*text) : std::nullopt;
  if (!stat) return s;
  s.procs_running = stat->procs_running;
  s.outside_running = std::max(0, s.procs_running - s.own_running);
  if (previous_) {
    const double busy = static_cast<double>(stat->busy_ticks - previous_->busy_ticks);
    const double idle = static_cast<double>(stat->idle_ticks - previous_->idle_ticks);
    const double steal = static_cast<double>(stat->steal_ticks - previous_->steal_ticks);
    if (busy + idle + steal > 0) s.steal = steal / (busy + idle + steal);
  }
  previous_ = stat;
  return s;
}

std::vector<LoadSample> LoadProbe::sample_for(double seconds, double interval_s,
                                              const std::vector<pid_t>& watched) {
  std::vector<LoadSample> out;
  const double end = monotonic_seconds() + seconds;
  do {
    out.push_back(sample(watched));
    if (monotonic_seconds() + interval_s > end) break;
    std::this_thread::sleep_for(std::chrono::duration<double>(interval_s));
  } while (true);
  return out;
}

LoadVerdict judge_load(const std::vector<LoadSample>& samples, int threads, double max_steal) {
  LoadVerdict v;
  if (samples.empty()) return v;
  int cpus = 0;
  for (const auto& s : samples) {
    v.outside_running += s.outside_running;
    v.steal = std::max(v.steal, s.steal);
    v.load_1min = std::max(v.load_1min, s.load_1min);
    cpus = std::max(cpus, s.cpus);
  }
  v.outside_running /= static_cast<double>(samples.size());
  std::vector<std::string> why;
  if (threads > cpus)
    why.push_back(fmt::format(
        "oversubscribed OpenMP: {} threads on {} CPUs (each thread waits for a CPU in turn)",
        threads, cpus));
  // The CPUs the measurement leaves free absorb outside work; half a task on average is noise.
  const double free_cpus = std::max(0, cpus - threads);
  if (v.outside_running > free_cpus + 0.5)
    why.push_back(
        threads > 0
            ? fmt::format(
                  "{:.1f} runnable tasks outside kforge on average while it used {} of {} CPUs",
                  v.outside_running, std::min(threads, cpus), cpus)
            : fmt::format("{:.1f} runnable tasks outside kforge on average on {} CPUs",
                          v.outside_running, cpus));
  if (v.steal > max_steal)
    why.push_back(
        fmt::format("the hypervisor took {:.0f}% of the CPU time (steal)", 100 * v.steal));
  v.busy = !why.empty();
  for (const auto& w : why) v.reason += (v.reason.empty() ? "" : "; ") + w;
  return v;
}

nlohmann::json to_json(const LoadSample& s) {
  return {{"at", s.at},
          {"load_1min", s.load_1min},
          {"procs_running", s.procs_running},
          {"own_running", s.own_running},
          {"outside_running", s.outside_running},
          {"steal", s.steal},
          {"cpus", s.cpus}};
}

nlohmann::json to_json(const LoadVerdict& v) {
  return {{"busy", v.busy},
          {"reason", v.reason},
          {"outside_running", v.outside_running},
          {"steal", v.steal},
          {"load_1min", v.load_1min}};
}

LoadSample load_sample_from_json(const nlohmann::json& j) {
  LoadSample s;
  s.at = j.value("at", 0.0);
  s.load_1min = j.value("load_1min", 0.0);
  s.procs_running = j.value("procs_running", 0);
  s.own_running = j.value("own_running", 0);
  s.outside_running = j.value("outside_running", 0);
  s.steal = j.value("steal", 0.0);
  s.cpus = j.value("cpus", 0);
  return s;
}

}  // namespace kforge::eval
