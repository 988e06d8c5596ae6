#pragma once
// Which peer was the fastest for a task on this machine, as bench --peers found it, so that the
// agents aim at it (--beat, default: this peer). One file per machine in the per-user cache, beside
// the peaks record (<cache>/fastest-peer/<the peaks record's name>):
// {"entries": {"<task>/<size>/<threads>t": {"peer": "xla", "speedup": 0.82, "updated": unix}}}.
// Only a row whose fastest peer was judged quietly is recorded.

#include <filesystem>
#include <optional>
#include <string>

#include "kforge/core/result.h"
#include "kforge/eval/machine.h"

namespace kforge::eval {

std::filesystem::path fastest_peer_file(const MachineProfile& machine);  // "" when uncached
std::string fastest_peer_entry(const std::string& task, const std::string& size, int threads);

// Records `peer` for `entry`, with the implementation's speedup over it.
Status record_fastest_peer(const std::filesystem::path& file, const std::string& entry,
                           const std::string& peer, double speedup);
// The peer recorded for `entry` (nullopt: none yet); a malformed file is an error naming it.
Result<std::optional<std::string>> cached_fastest_peer(const std::filesystem::path& file,
                                                       const std::string& entry);

}  // namespace kforge::eval
