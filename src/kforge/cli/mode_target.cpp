// The target's judge and dialect, built once for auto, search and hitl.
#include "kforge/cli/mode_target.h"

#include <fmt/format.h>

#include "kforge/cli/agent_stack.h"
#include "kforge/core/paths.h"

namespace kforge::cli {

void require_available(const KernelTarget& kt, std::string_view command) {
  if (auto missing = kt.target->unavailable_reason(); !missing.empty())
    throw UsageError(fmt::format("kforge {} --target {}: {}", command, kt.target->name(), missing));
}

std::string target_words(const KernelTarget& kt) {
  if (kt.host()) return "";
  std::string s = fmt::format(" --target {}", kt.target->name());
  if (kt.dtype != "f32") s += " --dtype " + kt.dtype;
  return s;
}

std::unique_ptr<ModeTarget> mode_target(const KernelTarget& kt, const eval::TaskContext& host,
                                        eval::MachineLock& lock) {
  auto m = std::make_unique<ModeTarget>();
  m->judge = {kt.target, kt.compiler.get()};
  if (kt.host()) return m;
  if (kt.target->agent_material().gpu) {
    eval::GpuProfileOptions go;
    go.cache_dir = core::user_cache_dir();
    go.cuda_home = toolchain_settings().cuda_home;
    auto exclusive = lock.measure();
    if (auto p = eval::gpu_profile(go))
      m->device = std::move(*p);
    else
      m->device_missing = p.error().message;
  }
  m->dialect = kernel_dialect(*kt.target, host, kt.compiler.get(),
                              m->device ? &*m->device : nullptr, m->device_missing);
  return m;
}

}  // namespace kforge::cli
