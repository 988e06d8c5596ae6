#pragma once
// What the agents of a search expansion are told of the search (agents/search_standing.h), read
// from the graph when the expansion starts and from the evaluations the search kept
// (node-<number>/evaluation.json in the session folder): the parent, its siblings, the path, the
// best.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "kforge/agents/search_standing.h"
#include "kforge/modes/expander.h"
#include "kforge/modes/search_graph.h"

namespace kforge::modes {

// How the agents name a node: as the search's progress lines do, by its number within the run.
std::string node_label(int number);

// The path to `parent`, its finished children and the search's `best`, from the graph.
ExpansionContext expansion_context(const SearchGraph& graph, std::int64_t parent,
                                   std::optional<std::int64_t> best);

// The standing for `x`, growing `parent`; evaluations read from `session_dir` where kept.
agents::SearchStanding search_standing(const Expansion& x, const store::NodeRecord& parent,
                                       const std::filesystem::path& session_dir);

}  // namespace kforge::modes
