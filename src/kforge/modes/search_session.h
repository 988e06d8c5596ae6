#pragma once
// Starting and resuming a search run: the run row, the root node, the options kept for --resume,
// and the interrupted nodes of a killed run marked as such.

#include <string>

#include "kforge/modes/search.h"

namespace kforge::modes {

// Creates the run and its root (the start kernel, evaluated, or an empty root standing for "from
// scratch"). `run_id` is the model session's id.
Status start_search_run(const SearchEnv& env, const SearchOptions& options, const std::string& task,
                        const std::string& size);

// For --resume: the stored options (with `jobs` taken from the caller), nodes left running marked
// interrupted. Errors when the run does not exist or is not a search.
Result<SearchOptions> prepare_resume(const std::filesystem::path& state_dir,
                                     const std::string& run_id, int jobs);

// Writes the best kernel, the graph (JSON), report.md and the run's final state.
Status finish_search_run(const SearchEnv& env, const SearchResult& result);

// report.md of a search: how it stopped, every node, and the best with its speedup over the
// partner the search aimed at (--beat).
std::string search_report(const SearchEnv& env, const SearchResult& result);

}  // namespace kforge::modes
