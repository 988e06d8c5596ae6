#pragma once
// `kforge auto`: the closed optimization loop.
//   prepare (the baseline's time, the roofline bound, the machine) →
//   per iteration: plan → implement → compile (debug loop, up to K fixes, every earlier error and
//   fix in view) → check (debug loop on incorrect, crashing or sandbox-violating kernels, with
//   the mismatch analysis) → tune the declared tunables, then re-check the tuned kernel → time
//   against the baseline → profile → the profiler's diagnosis and decision.
// Stops when the profiler says the best kernel is at its limit, after P iterations without
// improvement, after N iterations, when the budget is spent, or on Ctrl-C. The best correct
// kernel wins; an incorrect kernel is never the result.

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "kforge/agents/agents.h"
#include "kforge/agents/tuner.h"
#include "kforge/eval/paired_decision.h"
#include "kforge/modes/iteration_steps.h"
#include "kforge/modes/peer_report.h"
#include "kforge/modes/run_journal.h"

namespace kforge::modes {

// Which search expansion an auto run is (absent for `kforge auto`): written on each node it makes.
struct ExpansionTag {
  std::string key;                      // stable across resumes
  std::string strategy_id;              // a catalogue id, or "crossover"
  std::optional<std::int64_t> partner;  // crossover's second parent
};

struct AutoOptions {
  int iterations = 5;      // N
  int patience = 2;        // P: stop after this many iterations without a faster correct kernel
  int debug_attempts = 3;  // K: fixes per debug loop
  std::string strategy;    // a hint for the planner, every iteration
  std::string
      start_source;  // start from this kernel (a search expansion's parent); "" = from scratch
  std::optional<std::int64_t> parent_node;  // the node start_source came from (search)
  int depth = 0;                            // depth of the first node (search)
  agents::TuneOptions tune;
  double profile_seconds = 0.5;
  double time_budget_s = 1.0;
  double baseline_ms = 0;         // > 0: already measured (a search measures it once)
  std::string coder_instruction;  // passed to the coder on every iteration (e.g. a crossover's
                                  // second parent)
  std::optional<ExpansionTag> expansion;  // set when a search runs this as one of its expansions
  // The search's standing for the agents: the parent, siblings, best and budget (search only).
  std::optional<agents::SearchStanding> search;
};

struct IterationRecord {
  int iteration = 0;
  std::int64_t node = 0;  // its node's store id (0: not recorded)
  int node_number = 0;    // its node's number within the run: what the user is shown
  std::string strategy;
  std::string plan;
  std::string source;
  std::optional<eval::Evaluation> evaluation;  // the final one (timed and profiled when correct)
  std::optional<agents::Diagnosis> diagnosis;
  std::string tuning;        // the tuner's summary
  std::string tuning_table;  // its variants and times ("" without tunables)
  int fixes = 0;
  std::vector<agents::DebugAttempt> debug;
  PhaseClock clock;
  double wall_s = 0;
  llm::SessionTotals tokens;  // spent during this iteration
  std::string outcome;        // one line: what this iteration gave
  std::optional<eval::PairedDecision>
      decision;  // against the best so far, side by side (none for the first correct kernel)
};

struct AutoResult {
  std::vector<IterationRecord> iterations;
  std::optional<agents::BestKernel> best;
  std::optional<std::int64_t> best_node;
  std::string stop_reason;
  store::RunState state = store::RunState::finished;  // finished | stopped | interrupted | failed
  double baseline_ms = 0;
  // Set when the run could not start for a fault of kforge's or the task's (the baseline fails
  // its own check), not of the model's: the command reports it as an internal error.
  std::optional<std::string> internal_error;
  std::vector<store::NodeRecord>
      nodes;  // each iteration's node as last written (a search keeps them in memory)
  // The best kernel against every peer (--report-peers), measured after the loop, for report.md.
  std::vector<PeerComparison> peers;
};

struct AutoEnv {
  const eval::TaskContext* ctx = nullptr;
  const eval::MachineProfile* machine = nullptr;
  agents::AgentEnv* agents = nullptr;
  RunJournal* journal = nullptr;
  std::string run_id;
  eval::EvalOptions eval;  // threads etc.
  std::function<void(std::string_view)> say;
  // The target the kernels are written for, bound (default: cpp on the task's compiler); what
  // the agents are told of it comes from it (agents::kernel_dialect).
  target::BoundTarget target;
};

// Runs the loop, recording each iteration as a node of run `env.run_id` (the run row must exist).
AutoResult run_auto(const AutoEnv& env, const AutoOptions& options);

// report.md: the table of iterations and the best kernel.
std::string auto_report(const AutoEnv& env, const AutoResult& result);
nlohmann::json to_json(const AutoResult& result);

// Measures the time to beat: the baseline timed against itself, or, when `base` pairs with a peer
// (--beat), the peer's median beside it. A peer that fails is an error naming it.
Result<double> measure_baseline_ms(const eval::TaskContext& ctx, const eval::EvalOptions& base);

}  // namespace kforge::modes
