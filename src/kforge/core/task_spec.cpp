// Small queries on a parsed task.
#include "kforge/core/task_spec.h"

#include <cctype>

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

bool is_safe_task_id(std::string_view id) {
  auto plain = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  if (id.empty() || !plain(id.front())) return false;
  for (char c : id)
    if (!plain(c) && c != '.' && c != '-') return false;
  return id.find("..") == std::string_view::npos;
}

}  // namespace kforge::core
