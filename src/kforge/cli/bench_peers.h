#pragma once
// kforge bench --peers: the implementation chosen by --impl against every peer, one table.

#include <functional>
#include <string>
#include <vector>

#include "kforge/eval/machine.h"
#include "kforge/eval/suite_run.h"

namespace kforge::cli {

struct PeersRun {
  eval::SuiteRunOptions suite;     // the implementation, tasks, size and evaluation options
  std::vector<std::string> peers;  // partner names, in table order
  int retries = 2;                 // busy cells measured again, as bench does
  bool json = false;
  std::string header;  // the machine line bench prints
  int threads = 1;
  // Hears of each cell as it is measured (bench keeps it in the store), with its peer.
  std::function<void(const eval::SuiteTaskResult&, const std::string& peer)> on_cell;
};

// Prints the table (or JSON) and returns bench's exit status: 0 only when every cell was
// evaluated, the implementation correct, and no peer failed.
int run_bench_peers(const PeersRun& run, const eval::MachineProfile& machine);

}  // namespace kforge::cli
