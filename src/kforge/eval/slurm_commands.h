#pragma once
// Slurm's client commands as kforge uses them: sbatch --parsable to submit, squeue (then sacct
// for jobs the controller has forgotten) to follow, scancel to cancel. Each runs as a child with
// a time limit; a command that fails is an error with its stderr, never a crash.

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "kforge/core/result.h"
#include "kforge/eval/executor_config.h"

namespace kforge::eval {

struct JobRequest {
  std::string name;              // --job-name
  std::filesystem::path folder;  // --chdir and the log's folder
  std::filesystem::path script;  // the batch script
  bool exclusive = false;        // timing: the whole node, so no two measurements share one
  int cpus = 1;                  // --cpus-per-task when not exclusive
};

// The whole sbatch command line. --export=NONE always: the job gets none of this process's
// environment (API keys included); the script sets the few variables it needs.
std::vector<std::string> sbatch_argv(const ExecutorConfig& config, const JobRequest& job);
// Submits; the job's id.
Result<std::string> submit_job(const ExecutorConfig& config, const JobRequest& job);

// Where a job stands, as far as kforge cares.
enum class JobPhase {
  in_flight,  // pending, configuring, running, completing, suspended, requeued
  completed,  // ended with status 0: its result should be in its folder
  lost,       // cancelled from outside, node failure, preempted: worth submitting again
  failed,     // ended with an error of its own (non-zero status, time limit, memory)
  unknown,    // neither squeue nor sacct knows it (yet, or any more)
};
struct JobState {
  std::string state;  // Slurm's word: RUNNING, NODE_FAIL, …
  std::string reason;
  JobPhase phase = JobPhase::unknown;
};
JobPhase phase_of(const std::string& slurm_state);

// The states of `ids` (absent ones are unknown): one squeue for all, then sacct for the ones
// squeue no longer lists (where accounting is off, sacct fails and they stay unknown).
Result<std::map<std::string, JobState>> query_jobs(const std::vector<std::string>& ids);
Status cancel_jobs(const std::vector<std::string>& ids);

}  // namespace kforge::eval
