// What the agents are told of a bound target's kernels (loop_state.h's KernelDialect).
#include <algorithm>

#include "kforge/agents/loop_state.h"

namespace kforge::agents {

KernelDialect kernel_dialect(const target::BoundTarget& bound, const eval::TaskContext& host) {
  const target::Target& target = bound.target();
  KernelDialect d;
  d.target = std::string(target.name());
  const auto material = target.agent_material();
  d.fence = material.code_fence;
  d.header = target.task_header(host.task());
  const std::string extra = target.abi().extra_params;
  d.extra_parameters =
      extra.empty() ? 0 : 1 + static_cast<int>(std::count(extra.begin(), extra.end(), ','));
  d.compiler = bound.bound_compiler();
  d.roofline = target.roofline_applies();
  if (material.gpu) {
    d.gpu = true;
    d.device = bound.device();
    d.device_missing = bound.device_missing();
    d.arch = bound.arch();
  }
  return d;
}

}  // namespace kforge::agents
