#pragma once
// The executor a command's evaluations go through: --executor (or KFORGE_EXECUTOR), else
// [executor] kind in kforge.toml, else local. Local is null: evaluate() runs in this process, as
// it always did. Slurm needs [executor] shared_folder; a bad [executor] table is a UsageError
// with the file, line and key.

#include <memory>
#include <string>

#include "kforge/eval/executor.h"

namespace kforge::cli {

// `scope`: the run the evaluations belong to (a search's or auto run's id; "" for eval and bench):
// finished jobs are reused only within it (slurm_executor.h).
std::unique_ptr<eval::Executor> make_executor(const std::string& flag,
                                              const std::string& config_path,
                                              const std::string& scope = "");

}  // namespace kforge::cli
