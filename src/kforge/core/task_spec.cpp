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

std::string guard_probe_size_name(std::string_view size) { return std::string(size) + "-probe"; }

std::unique_ptr<TaskSpec> with_guard_probe(const TaskSpec& spec, std::string_view size) {
  auto probe = spec.guard_probe.find(size);
  const SizePreset* preset = spec.find_size(size);
  if (probe == spec.guard_probe.end() || !preset) return nullptr;
  auto copy = std::make_unique<TaskSpec>(spec);
  SizePreset shrunk = *preset;
  shrunk.name = guard_probe_size_name(size);
  for (const auto& [sym, value] : probe->second) shrunk.symbols[sym] = value;
  copy->sizes.push_back(std::move(shrunk));
  if (auto tol = spec.size_tolerance.find(size); tol != spec.size_tolerance.end())
    copy->size_tolerance[guard_probe_size_name(size)] = tol->second;
  return copy;
}

bool is_safe_task_id(std::string_view id) {
  auto plain = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  if (id.empty() || !plain(id.front())) return false;
  for (char c : id)
    if (!plain(c) && c != '.' && c != '-') return false;
  return id.find("..") == std::string_view::npos;
}

}  // namespace kforge::core
