#pragma once
// One evaluation as a cluster job: what the driver writes into the job's folder in the shared
// folder, and what the job on its node reads back and answers.
//   JOB/spec.json    the task's id and size, the kernel, the options (no secrets, no paths of the
//                    driver's but the folder itself), written before submission
//   JOB/task/        a copy of the task folder (a node need not see the driver's files)
//   JOB/seeds        the check inputs' seeds of this one evaluation: mode 0600, read once and
//                    deleted by the job before it compiles anything (see slurm_executor.h)
//   JOB/result.json  the Evaluation as to_json writes it, renamed into place when complete
//   JOB/jobs.json    the driver's record: every Slurm job id submitted for it and how each ended

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kforge/core/result.h"
#include "kforge/eval/evaluate.h"

namespace kforge::eval {

struct EvalJobSpec {
  std::string task_id, size, source, file_name;
  nlohmann::json options;  // options_to_json
  nlohmann::json to_json() const;
  static Result<EvalJobSpec> from_json(const nlohmann::json& j);
  // What identifies the work: equal keys mean the same evaluation was asked for.
  std::string key() const;
};

// The options a node can honour (its machine, lock and waits are its own; a dump stays local).
nlohmann::json options_to_json(const EvalOptions& o);
EvalOptions options_from_json(const nlohmann::json& j);

// A file only its owner may read, created whole and renamed into place.
Status write_private(const std::filesystem::path& path, const std::string& content);
Status write_seeds(const std::filesystem::path& path, const std::vector<std::uint64_t>& seeds);
// Reads the sealed seeds and deletes them: a second reader (a retried job, anyone) finds nothing.
Result<std::vector<std::uint64_t>> take_seeds(const std::filesystem::path& path);

// The job's result, written where the driver looks (atomically: a half-written file never shows).
Status write_job_result(const std::filesystem::path& job_dir, const Evaluation& e);
inline std::filesystem::path result_path(const std::filesystem::path& job_dir) {
  return job_dir / "result.json";
}

}  // namespace kforge::eval
