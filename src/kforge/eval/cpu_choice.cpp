// The evaluation's CPUs: a window of the allowed CPUs, the least busy over a short sample.
#include "kforge/eval/cpu_choice.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <limits>
#include <thread>

#include "kforge/core/fs.h"

namespace kforge::eval {
namespace {

std::uint64_t busy_of(std::string_view fields) {
  // user nice system idle iowait irq softirq steal: all but idle and iowait are busy.
  std::uint64_t sum = 0;
  int index = 0;
  while (!fields.empty()) {
    while (!fields.empty() && fields.front() == ' ') fields.remove_prefix(1);
    std::uint64_t v = 0;
    auto [end, ec] = std::from_chars(fields.data(), fields.data() + fields.size(), v);
    if (ec != std::errc{}) break;
    if (index != 3 && index != 4 && index < 8) sum += v;
    fields.remove_prefix(static_cast<std::size_t>(end - fields.data()));
    ++index;
  }
  return sum;
}

std::uint64_t busy_at(const std::vector<std::uint64_t>& busy, int cpu) {
  return static_cast<std::size_t>(cpu) < busy.size() ? busy[static_cast<std::size_t>(cpu)] : 0;
}

// The window turned so that its least busy CPU comes first (ties: the first at or after the
// rotation): thread 0, which also runs the kernel's serial code and the runner's own work, goes
// there. Neighbours stay neighbours, in a circle.
std::vector<int> least_busy_first(std::vector<int> cpus, const std::vector<std::uint64_t>& busy,
                                  unsigned rotation) {
  if (cpus.size() < 2) return cpus;
  std::size_t first = 0;
  std::uint64_t least = std::numeric_limits<std::uint64_t>::max();
  for (std::size_t k = 0; k < cpus.size(); ++k) {
    const std::size_t i = (rotation + k) % cpus.size();
    if (busy_at(busy, cpus[i]) < least) {
      least = busy_at(busy, cpus[i]);
      first = i;
    }
  }
  std::rotate(cpus.begin(), cpus.begin() + static_cast<std::ptrdiff_t>(first), cpus.end());
  return cpus;
}

std::optional<std::vector<std::uint64_t>> sample_busy() {
  auto text = core::read_text("/proc/stat");
  if (!text) return std::nullopt;
  return parse_per_cpu_busy(*text);
}

}  // namespace

std::optional<std::vector<std::uint64_t>> parse_per_cpu_busy(std::string_view text) {
  std::vector<std::uint64_t> busy;
  bool any = false;
  while (!text.empty()) {
    auto eol = text.find('\n');
    auto line = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view{} : text.substr(eol + 1);
    // "cpuN ..." lines only; "cpu " is the aggregate.
    if (line.size() < 4 || line.substr(0, 3) != "cpu" || line[3] < '0' || line[3] > '9') continue;
    int cpu = 0;
    auto [end, ec] = std::from_chars(line.data() + 3, line.data() + line.size(), cpu);
    if (ec != std::errc{} || cpu < 0 || cpu >= CPU_SETSIZE) return std::nullopt;
    if (busy.size() <= static_cast<std::size_t>(cpu))
      busy.resize(static_cast<std::size_t>(cpu) + 1);
    busy[static_cast<std::size_t>(cpu)] =
        busy_of(line.substr(static_cast<std::size_t>(end - line.data())));
    any = true;
  }
  if (!any) return std::nullopt;
  return busy;
}

std::vector<int> choose_cpus(const std::vector<int>& allowed, int threads,
                             const std::vector<std::uint64_t>& busy, unsigned rotation) {
  const std::size_t width = threads > 0 ? static_cast<std::size_t>(threads) : 1;
  if (width >= allowed.size()) return least_busy_first(allowed, busy, rotation);
  const std::size_t windows = allowed.size() - width + 1;
  std::size_t best = 0;
  std::uint64_t best_busy = std::numeric_limits<std::uint64_t>::max();
  for (std::size_t k = 0; k < windows; ++k) {
    const std::size_t start = (rotation + k) % windows;
    std::uint64_t sum = 0;
    for (std::size_t i = start; i < start + width; ++i) sum += busy_at(busy, allowed[i]);
    if (sum < best_busy) {  // strict: the first of equals, counting from the rotation, wins
      best_busy = sum;
      best = start;
    }
  }
  std::vector<int> window(allowed.begin() + static_cast<std::ptrdiff_t>(best),
                          allowed.begin() + static_cast<std::ptrdiff_t>(best + width));
  return least_busy_first(std::move(window), busy, rotation);
}

std::vector<int> allowed_cpus() {
  cpu_set_t set;
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof set, &set) == 0)
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &set)) cpus.push_back(c);
  return cpus;
}

std::vector<int> choose_cpus_now(int threads, double sample_s) {
  static std::atomic<unsigned> evaluations{0};
  const unsigned rotation = static_cast<unsigned>(getpid()) + evaluations.fetch_add(1);
  auto allowed = allowed_cpus();
  if (allowed.size() < 2) return allowed;
  if (sample_s <= 0) return choose_cpus(allowed, threads, {}, rotation);
  auto before = sample_busy();
  std::this_thread::sleep_for(std::chrono::duration<double>(sample_s));
  auto after = sample_busy();
  std::vector<std::uint64_t> delta;
  if (before && after)
    for (std::size_t c = 0; c < after->size(); ++c)
      delta.push_back(c < before->size() && (*after)[c] >= (*before)[c] ? (*after)[c] - (*before)[c]
                                                                        : 0);
  return choose_cpus(allowed, threads, delta, rotation);
}

}  // namespace kforge::eval
