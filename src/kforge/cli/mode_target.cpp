// The door to a target for auto, search and hitl.
#include "kforge/cli/mode_target.h"

#include <fmt/format.h>

#include "kforge/cli/common.h"

namespace kforge::cli {

target::BoundTarget bind_mode_target(std::string_view command, const std::string& name,
                                     const std::string& dtype, const std::string& beat) {
  const target::Target& target = target_arg(name);
  check_partner_for_target(target, beat.empty() || beat == "fastest" ? "baseline" : beat, false);
  check_dtype_for_target(target, dtype.empty() ? "f32" : dtype);
  auto bound = target::bind(target, toolchain_settings(), dtype.empty() ? "f32" : dtype);
  if (auto missing = target.unavailable_reason(); !missing.empty())
    throw UsageError(fmt::format("kforge {} --target {}: {}", command, target.name(), missing));
  return bound;
}

std::string mode_partner(const target::BoundTarget& bound, const std::string& beat,
                         const std::string& task, const std::string& size, int threads,
                         const eval::MachineProfile& machine) {
  const std::string asked = beat.empty() ? "fastest" : beat;
  if (bound.target().peers_apply()) return resolve_beat(asked, task, size, threads, machine);
  return asked == "fastest" ? "baseline" : asked;
}

void enter_mode_target(target::BoundTarget& bound, const std::string& partner,
                       eval::MachineLock& lock, eval::EvalOptions& eval) {
  apply_partner(partner, eval);
  eval.dtype = bound.dtype();
  bound.find_device(lock);
}

std::string recorded_target(const target::BoundTarget& bound) {
  return &bound.target() == &target::default_target() ? "" : std::string(bound.target().name());
}

std::string target_words(const target::BoundTarget& bound) {
  if (recorded_target(bound).empty()) return "";
  std::string s = fmt::format(" --target {}", bound.target().name());
  if (bound.dtype() != "f32") s += " --dtype " + bound.dtype();
  return s;
}

}  // namespace kforge::cli
