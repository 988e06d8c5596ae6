#pragma once
// What the sub-agents are told about where a run stands: the task, the machine, the baseline,
// the best kernel so far with its evaluation and profile, and every earlier attempt. The modes
// (auto, search, hitl) keep it; the agents only read it.

#include <optional>
#include <string>
#include <vector>

#include "kforge/agents/reply_parsers.h"
#include "kforge/eval/evaluation.h"
#include "kforge/eval/machine.h"
#include "kforge/eval/task_context.h"

namespace kforge::agents {

struct AttemptRecord {
  int iteration = 0;
  std::string strategy;   // what was tried
  std::string verdict;    // the final verdict of the attempt
  std::optional<double> speedup;
  double roofline = 0;
  std::string note;       // what it gave: the diagnosis, the failure, the tuning result
};

struct BestKernel {
  std::string source;
  eval::Evaluation evaluation;
  std::optional<Diagnosis> diagnosis;
  int iteration = 0;
};

struct LoopState {
  const eval::TaskContext* task = nullptr;
  const eval::MachineProfile* machine = nullptr;
  int threads = 1;
  double baseline_ms = 0;       // the libtorch baseline's median at this size
  double roofline_ms = 0;       // the time at 100% of the roofline
  std::optional<BestKernel> best;
  std::vector<AttemptRecord> history;
};

// Text blocks for the prompt templates.
std::string describe_task(const eval::TaskContext& task);
std::string describe_machine(const eval::MachineProfile& m);                      // one line
std::string describe_machine_detail(const eval::MachineProfile& m, int threads);  // peaks, balance, caches
std::string describe_standing(const LoopState& s);
std::string describe_history(const LoopState& s);
std::string describe_evaluation(const eval::Evaluation& e);  // verdict, times, speedup, roofline, profile

}  // namespace kforge::agents
