#pragma once
// What auto, search and hitl set up the same way for --target: the refusal of a target that cannot
// run here (before any model call), the words the session row records, and the modes' judge with
// what the agents are told of the target (for a GPU target, the device and its measured peaks).

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "kforge/agents/loop_state.h"
#include "kforge/cli/common.h"
#include "kforge/eval/gpu_profile.h"
#include "kforge/modes/kernel_judge.h"

namespace kforge::cli {

// A UsageError "kforge COMMAND --target T: <what is missing>" when the target cannot run here.
void require_available(const KernelTarget& kt, std::string_view command);

// " --target T [--dtype D]" as the session row records the command ("" for the default target).
std::string target_words(const KernelTarget& kt);

// The modes' judge and the agents' dialect for `kt`'s kernels on the task in `host`. It holds the
// device the dialect points at, so it is not copied.
struct ModeTarget {
  modes::KernelJudge judge;
  agents::KernelDialect dialect;  // the cpp target's default when kt is the host's
  std::optional<eval::GpuProfile> device;
  std::string device_missing;

  ModeTarget() = default;
  ModeTarget(const ModeTarget&) = delete;
  ModeTarget& operator=(const ModeTarget&) = delete;
};
// A GPU target's device is measured with the machine to itself the first time (`lock`), then read
// from the per-user cache; when there is none the agents are told why.
std::unique_ptr<ModeTarget> mode_target(const KernelTarget& kt, const eval::TaskContext& host,
                                        eval::MachineLock& lock);

}  // namespace kforge::cli
