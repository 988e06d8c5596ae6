#pragma once
// A node row as JSON: the one description `kforge graph --json`, `kforge export` and anything else
// that shows a node to a program share, so a column added to the row is shown everywhere at once.

#include <nlohmann/json.hpp>

#include "kforge/store/runs.h"

namespace kforge::store {

// Every typed column but the kernel's text and plan (large; `export` writes them as files), with
// unmeasured numbers null, never 0. Side-by-side decisions are parsed back into objects. The node,
// its parent and its partner are named by their numbers within the run ("id", "parent",
// "partner": what `kforge export RUN N` takes); the store's own id is "global_id". `numbers` are
// those of the node's run.
nlohmann::json node_json(const NodeRecord& node, const NodeNumbers& numbers);

}  // namespace kforge::store
