#pragma once
// The check tolerance when a kernel computes in a narrower floating type than the reference
// (`--dtype bf16` on the pallas target): outputs are still compared against the cached f32
// reference outputs, with a tolerance that says how far bfloat16 arithmetic may honestly land.

#include <string>

#include "kforge/core/result.h"
#include "kforge/core/task_resolve.h"

namespace kforge::core {

// "f32" (the task's own tolerance) or "bf16"; anything else is refused, naming what is known.
Status check_dtype_name(const std::string& dtype);

// The task at `dtype`: f32 is the task as it is; bf16 takes [check.bf16] from task.toml, or the
// default (dtype_tolerance.cpp says how it is derived), and never less than the f32 tolerance.
ResolvedTask at_dtype(ResolvedTask task, const std::string& dtype);

}  // namespace kforge::core
