#pragma once
// The [executor] table of kforge.toml: where evaluations run and, on Slurm, how jobs are asked for.
//   [executor]
//   kind = "slurm"                 # local (default) | slurm; --executor overrides it
//   partition = "cpu"  account = "proj42"  time_limit = "00:20:00"  constraint = "avx512"
//   gpus_per_job = 0               # --gpus for each job (timing a cuda/pallas kernel wants 1)
//   shared_folder = "/scratch/me/kforge"   # seen at this path by this machine and every node
//   max_jobs = 8  retries = 2  poll_s = 0.5
//   sbatch_args = ["--qos=short"]  # anything else sbatch should get

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "kforge/core/result.h"

namespace kforge::eval {

struct ExecutorConfig {
  std::string kind = "local";
  std::string partition, account, constraint;
  std::string time_limit = "00:30:00";  // per job; Slurm's [D-]HH:MM:SS
  int gpus_per_job = 0;
  std::filesystem::path shared_folder;
  // Jobs submitted and not finished at once. Timing jobs take whole nodes, so more than the nodes
  // only queues them in Slurm, where a Ctrl-C or a restart has more to cancel or adopt.
  int max_jobs = 8;
  int retries = 2;  // resubmissions of one evaluation whose job was lost (node failure, scancel)
  double poll_s = 0.5;
  std::vector<std::string> sbatch_args;
  std::filesystem::path file;  // where this came from; empty: the defaults
};

// Errors name the file, line, column and key: "kforge.toml:9:12: executor.max_jobs: must be …".
Result<ExecutorConfig> parse_executor_config(std::string_view toml_text,
                                             const std::filesystem::path& source);
// `path` (--config), else ./kforge.toml if it exists, else the defaults (as the model config).
Result<ExecutorConfig> load_executor_config(const std::filesystem::path& path);

}  // namespace kforge::eval
