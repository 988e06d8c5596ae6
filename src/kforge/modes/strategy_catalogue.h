#pragma once
// The strategies a search can ask for (strategies/cpu.toml, plus a user's own file): an id, a
// family (for the evolutionary search's cells), the tags of the tasks it is for, and the text the
// planner is given.

#include <filesystem>
#include <string>
#include <vector>

#include "kforge/core/result.h"

namespace kforge::modes {

struct Strategy {
  std::string id, family, text;
  std::vector<std::string> tags;  // task tags it serves; empty or "any": every task
  bool fits(const std::vector<std::string>& task_tags) const;
};

// Reads `file`; entries of `extra` (if given) are added, replacing those with the same id (or,
// when `extra` says `replace = true`, replacing the whole catalogue).
Result<std::vector<Strategy>> load_strategies(const std::filesystem::path& file,
                                              const std::filesystem::path& extra = {});
std::filesystem::path default_strategies_file();

// The strategies that fit a task with these tags, in catalogue order.
std::vector<Strategy> strategies_for(const std::vector<Strategy>& catalogue,
                                     const std::vector<std::string>& task_tags);

}  // namespace kforge::modes
