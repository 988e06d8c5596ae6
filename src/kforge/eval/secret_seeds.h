#pragma once
// The per-task pool of secret seeds for check inputs, kept in .kforge/secrets/ (mode 0600) and
// never printed. Agents see kernels, verdicts and mismatch reports, never these numbers, so no
// kernel can be written for the exact inputs it will be judged on.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "kforge/core/result.h"

namespace kforge::eval {

// Returns the task's pool, creating it (from the OS entropy source) on first use.
Result<std::vector<std::uint64_t>> secret_seeds(const std::filesystem::path& state_dir,
                                                const std::string& task_id, int count);

}  // namespace kforge::eval
