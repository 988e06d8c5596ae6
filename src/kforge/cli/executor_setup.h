#pragma once
// The executor a command's evaluations go through: --executor (or KFORGE_EXECUTOR), else
// [executor] kind in kforge.toml, else local. Local is null: evaluate() runs in this process, as
// it always did. Slurm needs [executor] shared_folder; a bad [executor] table is a UsageError
// with the file, line and key.

#include <memory>
#include <string>

#include "kforge/eval/executor.h"

namespace kforge::cli {

std::unique_ptr<eval::Executor> make_executor(const std::string& flag,
                                              const std::string& config_path);

}  // namespace kforge::cli
