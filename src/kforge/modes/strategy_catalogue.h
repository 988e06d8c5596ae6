#pragma once
// The strategies a search can ask for (strategies/cpu.toml, plus a user's own file): an id, a
// family (for the evolutionary search's cells), the tags of the tasks it is for, the features a
// task must have for it to apply (task_features.h), and the text the planner is given. A strategy
// whose text keeps state from one call for the next is never offered: the rules forbid it.

#include <filesystem>
#include <string>
#include <vector>

#include "kforge/core/result.h"

namespace kforge::modes {

struct Strategy {
  std::string id, family, text;
  std::vector<std::string> tags;  // task tags it serves; empty or "any": every task
  // Task features it needs, every one of them (`requires`: "masked-work", "shared-kv-heads", or
  // a tag): what it works on must exist in the task.
  std::vector<std::string> needs;
  // Why it is not offered to a task with these features (its tags and derived features), "" when
  // it is.
  std::string why_not(const std::vector<std::string>& task_features) const;
  bool fits(const std::vector<std::string>& task_features) const {
    return why_not(task_features).empty();
  }
};

// Whether `text` asks a kernel to keep something from one call for the next ("across calls"),
// which the rules forbid: inputs change between calls and no state may make a later call faster.
bool keeps_state_across_calls(const std::string& text);

// Reads `file`; entries of `extra` (if given) are added, replacing those with the same id (or,
// when `extra` says `replace = true`, replacing the whole catalogue).
Result<std::vector<Strategy>> load_strategies(const std::filesystem::path& file,
                                              const std::filesystem::path& extra = {});
std::filesystem::path default_strategies_file();

// The strategies that fit a task with these features (task_features(spec), or its tags alone), in
// catalogue order.
std::vector<Strategy> strategies_for(const std::vector<Strategy>& catalogue,
                                     const std::vector<std::string>& task_features);
// The strategies left out for such a task, each "id: why", in catalogue order.
std::vector<std::string> strategies_left_out(const std::vector<Strategy>& catalogue,
                                             const std::vector<std::string>& task_features);

}  // namespace kforge::modes
