#pragma once
// The real Expander: an expansion is an auto run (usually one iteration) started from the
// parent's kernel with the expansion's strategy, recorded as nodes of the search's run; two
// kernels are compared by timing them side by side (paired_decision.h).

#include "kforge/modes/auto_loop.h"
#include "kforge/modes/expander.h"
#include "kforge/modes/strategy_catalogue.h"

namespace kforge::modes {

struct AutoExpanderSetup {
  AutoEnv env;            // run_id, journal, agents, eval options; `say` prefixed per expansion
  AutoOptions expansion;  // debug attempts, tuning, timing budget, baseline, iterations
  std::vector<Strategy> strategies;  // a strategy id's text
};

class AutoExpander : public Expander {
 public:
  explicit AutoExpander(AutoExpanderSetup setup) : setup_(std::move(setup)) {}
  ExpansionResult expand(const Expansion& x, const store::NodeRecord& parent,
                         const store::NodeRecord* partner) override;
  eval::PairedDecision compare(const std::string& challenger, const std::string& incumbent,
                               const std::string& incumbent_label) override;

 private:
  AutoExpanderSetup setup_;
};

}  // namespace kforge::modes
