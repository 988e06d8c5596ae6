#pragma once
// A run's graph of kernels as Graphviz dot (nodes coloured by verdict, labelled with the strategy
// and the speedup, the path to the best node marked), as JSON, and as SVG through dot(1).
// `kforge graph` writes them; `kforge serve` shows the SVG live.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kforge/core/result.h"
#include "kforge/store/runs.h"

namespace kforge::modes {

// `nodes` are the run's, as store::nodes_of_run reads them: each named by its number in the run.
std::string run_graph_dot(const store::RunRecord& run, const std::vector<store::NodeRecord>& nodes);
nlohmann::json run_graph_json(const store::RunRecord& run,
                              const std::vector<store::NodeRecord>& nodes);
// Graphviz's dot -Tsvg; an error that names Graphviz when it fails or is missing.
Result<std::string> dot_to_svg(const std::string& dot);

}  // namespace kforge::modes
