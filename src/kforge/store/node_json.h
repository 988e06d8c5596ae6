#pragma once
// A node row as JSON: the one description `kforge graph --json`, `kforge export` and anything else
// that shows a node to a program share, so a column added to the row is shown everywhere at once.

#include <nlohmann/json.hpp>

#include "kforge/store/runs.h"

namespace kforge::store {

// Every typed column but the kernel's text and plan (large; `export` writes them as files), with
// unmeasured numbers null, never 0. Side-by-side decisions are parsed back into objects.
nlohmann::json node_json(const NodeRecord& node);

}  // namespace kforge::store
