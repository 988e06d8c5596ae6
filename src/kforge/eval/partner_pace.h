#pragma once
// The partner's own pace as a load signal. The libtorch baseline (or the reference) is the same
// library every time a task is timed at a size and thread count on this machine, so its median
// should not move; when it runs far slower than it did on a quiet machine, something took the
// CPUs, whatever /proc said while kforge looked (a burst between samples, a noisy neighbour on
// the hypervisor that steal does not show, memory bandwidth taken by another socket's job).
//
// The quiet medians live in the per-user cache beside the peaks record, one file per machine
// (<cache>/partner-pace/<the peaks record's name>), read and written under a lock file:
// {"entries": {"<task>/<size>/<threads>t/<partner>": {"quiet_ms": [up to 7 latest], "updated":
// unix}}}. Only timings judged quiet by every other signal add a median.

#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "kforge/core/result.h"
#include "kforge/eval/machine.h"

namespace kforge::eval {

// The partner ran this many times slower than its quiet median, or more: the machine was busy.
inline constexpr double kPartnerSlowdownBusy = 1.5;

// The store of `machine` ("" when the machine's peaks are not cached: nowhere to keep it).
std::filesystem::path partner_pace_file(const MachineProfile& machine);
std::string partner_pace_entry(const std::string& task, const std::string& size, int threads,
                               const std::string& partner);

// The median of the quiet medians kept for `entry`, and how many there are (nullopt: none).
struct QuietPace {
  double median_ms = 0;
  int runs = 0;
};
std::optional<QuietPace> quiet_pace(const nlohmann::json& record, const std::string& entry);
// `record` with one more quiet median for `entry` (the oldest beyond `keep` dropped).
nlohmann::json with_quiet_run(nlohmann::json record, const std::string& entry, double median_ms,
                              double now_unix, std::size_t keep = 7);

// The partner's median this time against its quiet pace.
struct PartnerPace {
  std::optional<QuietPace> quiet;
  double slowdown = 0;  // current / quiet median; 0 when there is no quiet median yet
  bool busy = false;
  std::string reason;  // "the baseline ran 2.1x slower than its quiet median (3 quiet runs)"
  // The partner timed alone right after the pairs (0: not timed), each call after the pause it
  // had before its calls beside the kernel (PairedTimingRequest::idle_before_call_ms).
  double alone_ms = 0, alone_pause_ms = 0;
  nlohmann::json to_json() const;
};
PartnerPace judge_partner_pace(const std::optional<QuietPace>& quiet, double current_ms,
                               const std::string& partner, double busy_at = kPartnerSlowdownBusy);

// The record in `file` ({} when absent); an unreadable or malformed file is an error naming it.
Result<nlohmann::json> read_partner_pace(const std::filesystem::path& file);
// Adds one quiet median under the record's lock (read, add, write atomically).
Status record_quiet_partner(const std::filesystem::path& file, const std::string& entry,
                            double median_ms);

}  // namespace kforge::eval
