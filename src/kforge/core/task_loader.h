#pragma once
// Reads a task folder (task.toml and its sources) into a TaskSpec, validating every field.
// Errors name the file, line and field: "…/task.toml:14:9: inputs[1].dtype: unknown dtype 'f16'".

#include <filesystem>

#include "kforge/core/result.h"
#include "kforge/core/task_spec.h"

namespace kforge::core {

Result<TaskSpec> load_task(const std::filesystem::path& dir);

}  // namespace kforge::core
