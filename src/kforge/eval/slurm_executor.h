#pragma once
// Evaluations as Slurm jobs. Each evaluate() becomes one job that runs `kforge eval-job FOLDER` on
// a node; the node runs evaluate_here() and leaves result.json in FOLDER (eval_job.h). Model
// calls, the store and every decision stay in this process, which submits, follows and waits.
//
// Jobs in flight: at most config.max_jobs at once (default 8); the callers (a search's --jobs
// threads, a bench's tasks) wait here for a slot. Timing jobs take a node each (--exclusive),
// so jobs beyond the nodes only queue inside Slurm, where a Ctrl-C has more to cancel and a
// restart more to adopt; set max_jobs to the nodes you may use.
//
// Lost jobs (scancel from outside, NODE_FAIL, BOOT_FAIL, PREEMPTED) are submitted again, at most
// config.retries times, each attempt and how it ended kept in the folder's jobs.json. A job that
// fails on its own (non-zero status, time limit) is not retried: its evaluation says why.
//
// Restart: the folder of an evaluation is named by the hash of what it evaluates and how
// (EvalJobSpec::key, with EvalOptions::job_scope: a search's run id) and by how many times this
// process asked for that same work before (a re-measurement asks twice). A restarted driver that
// asks again in the same order finds a finished folder's result.json (no job), or adopts the job
// still in flight (no second job).
//
// Secrets: the driver reads the task's secret seed pool and writes only this evaluation's draws
// into FOLDER/seeds, mode 0600 in a 0700 folder, which the job reads and deletes before it
// compiles anything (the kernel never runs while the file exists; it is in Landlock's view in
// no case). No API key reaches a node: sbatch gets --export=NONE and the script sets only
// kforge's own KFORGE_* settings. What this covers: other users of the cluster (they cannot
// read the shared folder), the kernel under evaluation (sandboxed, and the seeds are gone
// before it runs) and anything that reads a job's environment. What it does not: root on a node
// or on the file server, or the job's own user account (which is the driver's user).

#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "kforge/eval/executor.h"
#include "kforge/eval/executor_config.h"
#include "kforge/eval/slurm_commands.h"

namespace kforge::eval {

struct SlurmSetup {
  ExecutorConfig config;
  std::filesystem::path kforge;       // this binary, as the nodes see it
  std::vector<std::string> node_env;  // NAME=value lines the job script exports (KFORGE_* only)
  const std::atomic<bool>* cancel = nullptr;  // Ctrl-C: cancel every job and stop waiting
  std::function<void(std::string_view)> say;  // progress lines
  // The run its evaluations belong to (a search's id): finished jobs are reused only within it,
  // so a resumed run takes its own results and a new one measures afresh. "": any identical one.
  std::string scope;
};

struct SlurmCounts {
  int submitted = 0, reused = 0, adopted = 0, retried = 0, cancelled = 0;
};

class SlurmExecutor final : public Executor {
 public:
  // Errors when the shared folder is missing or not writable.
  static Result<std::unique_ptr<SlurmExecutor>> create(SlurmSetup setup);
  ~SlurmExecutor() override;

  Evaluation evaluate(const TaskContext& ctx, const std::string& source,
                      const std::string& file_name, const EvalOptions& options) override;
  void cancel_all() override;
  std::string summary() const override;
  SlurmCounts counts() const;

 private:
  explicit SlurmExecutor(SlurmSetup setup) : setup_(std::move(setup)) {}
  struct Job;
  std::filesystem::path folder_for(const std::string& key);
  Status prepare(const Job& job, const TaskContext& ctx, const nlohmann::json& spec);
  Result<std::string> submit(Job& job);
  Evaluation follow(Job& job, const TaskContext& ctx);
  JobState state_of(const std::string& id);
  bool cancelling() const;
  void acquire_slot();
  void release_slot();
  void say(const std::string& m) const;

  SlurmSetup setup_;
  mutable std::mutex mu_;
  std::condition_variable slot_free_;
  int in_flight_ = 0;
  std::map<std::string, int> asked_;  // spec key → times asked so far by this process
  std::set<std::string> active_;      // job ids this process follows now
  std::map<std::string, JobState> states_;
  double states_at_ = -1e9;
  std::atomic<bool> cancelled_{false};
  SlurmCounts counts_;
};

}  // namespace kforge::eval
