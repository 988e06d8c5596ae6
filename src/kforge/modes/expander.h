#pragma once
// The seam between a search algorithm and what grows its graph. An Expander turns a parent node
// into children (the real one runs the auto loop from the parent's kernel: auto_expander.h) and
// times two kernels side by side; algorithms and the search driver see nothing else, so they are
// tested with a fake one in milliseconds.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kforge/eval/paired_decision.h"
#include "kforge/store/runs.h"

namespace kforge::modes {

// Where the search stands when an expansion starts, for its agents (expansion_context.h): filled
// by the driver, never part of the expansion's identity.
struct ExpansionContext {
  std::vector<store::NodeRecord> path;      // the root down to the parent's parent
  std::vector<store::NodeRecord> siblings;  // the parent's other children that finished, by id
  std::optional<store::NodeRecord> best;    // the search's best
  int max_depth = 0;                        // the deepest level the algorithm plans (0: none)
  int expansions_left = -1;                 // in the search after this one, at most (-1: not known)
};

struct Expansion {
  std::string key;  // deterministic: identifies the expansion across resumes
  std::int64_t parent = 0;
  std::string strategy;                 // a catalogue id, or "crossover"
  std::optional<std::int64_t> partner;  // crossover's second parent
  ExpansionContext context;             // set by the driver as the expansion starts
};

struct ExpansionResult {
  store::RunState state = store::RunState::finished;  // anything else stops the search
  std::string stop_reason;
  std::vector<store::NodeRecord> nodes;  // every node it recorded (in the ledger), as last written
  std::optional<std::int64_t> node;      // the node it finished with: its best, else its last
  std::string best_source;  // the best's kernel ("" when the expansion found no correct one)
  std::optional<eval::Evaluation> best;  // the best's evaluation
};

class Expander {
 public:
  virtual ~Expander() = default;
  // Grows `parent` with the expansion's strategy (`partner`: crossover's second parent), recording
  // each node it makes as it goes. Called from several threads at once.
  virtual ExpansionResult expand(const Expansion& x, const store::NodeRecord& parent,
                                 const store::NodeRecord* partner) = 0;
  // Times `challenger` against `incumbent` side by side in one run (paired_decision.h).
  virtual eval::PairedDecision compare(const std::string& challenger, const std::string& incumbent,
                                       const std::string& incumbent_label) = 0;
};

}  // namespace kforge::modes
