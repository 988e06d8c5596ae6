#pragma once
// A hitl session's kernel versions as nodes of its run (RunLedger), the way auto's iterations and
// a search's expansions are: each version a node whose parent is the version it came from, with
// the judge's verdict and times in typed columns, so graph, sessions, export and serve show a hitl
// session like any other run. state.json names each version's node; a version without one (a
// session saved by an older kforge, or a node write that failed) keeps its source inline there
// and is recorded by restore_versions when the session is opened again.

#include <cstdint>
#include <optional>

#include "kforge/core/result.h"
#include "kforge/modes/hitl_session.h"
#include "kforge/modes/run_ledger.h"

namespace kforge::modes {

// The node row of version `v` as made (source, origin as its strategy, parent's node, depth);
// what the judge later says of it is written by the session as each step ends.
store::NodeRecord version_node(const HitlState& state, const KernelVersion& v);

// The version a version came from when state.json does not say (an older kforge's): the named
// version of a revert, otherwise the one before it (every other command grew the latest).
int implied_parent(const HitlState& state, const KernelVersion& v);

// On opening a session: every version's source read back from its node, and every version
// without a node recorded as one (the run row too, for a store that predates hitl runs),
// carrying what state.json knew of it (the best's evaluation, a passed check). Idempotent: a
// version whose node is already there (same run, number and source) is matched, not added again.
// Returns how many versions were recorded; an error names the session, version and node.
Result<int> restore_versions(HitlState& state, RunLedger& ledger);

}  // namespace kforge::modes
