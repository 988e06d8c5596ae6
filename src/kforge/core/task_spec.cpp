// Small queries on a parsed task.
#include "kforge/core/task_spec.h"

namespace kforge::core {

bool TaskSpec::has_generator() const {
  for (const auto& in : inputs)
    if (in.init.dist == Dist::custom) return true;
  return false;
}

const SizePreset* TaskSpec::find_size(std::string_view name) const {
  for (const auto& s : sizes)
    if (s.name == name) return &s;
  return nullptr;
}

}  // namespace kforge::core
