#pragma once
// Which process owns a running run: host, boot, pid and the pid's start time, so that a run whose
// process was killed (or whose machine rebooted) is seen as interrupted, and a reused pid is not
// mistaken for the owner.

#include <string>

namespace kforge::store {

// "host|boot id|pid|start ticks" of the calling process.
std::string current_process_owner();

// Whether `owner` (as written by current_process_owner) names a process alive now. An owner on
// another host cannot be checked and counts as alive; an empty owner (a run written before owners
// were recorded) counts as alive too.
bool owner_alive(const std::string& owner);

}  // namespace kforge::store
