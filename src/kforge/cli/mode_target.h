#pragma once
// The one door auto, search and hitl enter a target by. bind_mode_target takes --target, --dtype
// and --beat and gives the bound target (targets/bound_target.h), refused before any model call
// when it cannot run here or the dtype or partner does not fit it; mode_partner says what --beat
// pairs its kernels with; enter_mode_target, once the machine is known, measures its device and
// sets the evaluation options it implies. Nothing here asks which target it is.

#include <string>
#include <string_view>

#include "kforge/eval/evaluate.h"
#include "kforge/eval/machine.h"
#include "kforge/eval/machine_lock.h"
#include "kforge/targets/bound_target.h"

namespace kforge::cli {

// A UsageError "kforge COMMAND --target T: <what is missing>" when the target cannot run here,
// and the dtype's or the partner's refusal (common.h) before anything is built.
target::BoundTarget bind_mode_target(std::string_view command, const std::string& name,
                                     const std::string& dtype, const std::string& beat);

// The partner --beat pairs the kernels with: for a target the peers pair, "fastest" (or nothing)
// reads bench --peers' table for this task, size and thread count on this machine; for another
// target, its own baseline unless --beat named one it accepts.
std::string mode_partner(const target::BoundTarget& bound, const std::string& beat,
                         const std::string& task, const std::string& size, int threads,
                         const eval::MachineProfile& machine);

// `partner` and the dtype into `eval`; a GPU target's device measured with the machine to itself
// the first time (`lock`), then read from the per-user cache, or the agents told why there is none.
void enter_mode_target(target::BoundTarget& bound, const std::string& partner,
                       eval::MachineLock& lock, eval::EvalOptions& eval);

// The target as a session records it: "" for the default target (as sessions before --target did).
std::string recorded_target(const target::BoundTarget& bound);
// " --target T [--dtype D]" as the session row records the command ("" for the default target).
std::string target_words(const target::BoundTarget& bound);

}  // namespace kforge::cli
