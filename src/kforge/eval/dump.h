#pragma once
// --dump DIR: the check inputs, the kernel's outputs and the reference outputs of every check
// set as .npy files, with a manifest, so a run can be re-checked with NumPy, JAX or PyTorch.
// (The dump reveals the secret inputs to whoever reads DIR: it is for humans, never for agents.)

#include <filesystem>
#include <vector>

#include "kforge/core/result.h"
#include "kforge/core/task_resolve.h"
#include "kforge/eval/output_snapshot.h"
#include "kforge/eval/shared_set.h"

namespace kforge::eval {

Status dump_check_sets(const std::filesystem::path& dir, const core::ResolvedTask& task,
                       const std::vector<SharedSet>& inputs,
                       const std::vector<OutputSnapshot>& results,
                       const std::vector<SharedSet>& references);

}  // namespace kforge::eval
