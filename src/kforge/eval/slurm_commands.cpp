// sbatch, squeue, sacct and scancel (slurm_commands.h).
#include "kforge/eval/slurm_commands.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <sstream>

#include "kforge/core/subprocess.h"
#include "kforge/core/trim.h"

namespace kforge::eval {
namespace {

Result<std::string> run_slurm(const std::vector<std::string>& argv) {
  core::ProcessOptions po;
  po.timeout = std::chrono::seconds(60);  // a busy controller answers slowly, not never
  auto r = core::run_process(argv, po);
  if (r.spawn_failed)
    return Error{fmt::format("{}: could not be started (is Slurm installed here?)", argv[0])};
  if (!r.success())
    return Error{fmt::format("{} failed ({}): {}", fmt::join(argv, " "), r.describe(),
                             std::string(core::trim(r.err)))};
  return r.out;
}

}  // namespace

std::vector<std::string> sbatch_argv(const ExecutorConfig& c, const JobRequest& job) {
  std::vector<std::string> a = {"sbatch", "--parsable", "--export=NONE", "--job-name=" + job.name,
                                "--chdir=" + job.folder.string(),
                                "--output=" + (job.folder / "slurm-%j.out").string(), "--nodes=1",
                                "--ntasks=1", "--time=" + c.time_limit,
                                // A node that fails under a job: kforge resubmits it itself, with
                                // a record of why, so Slurm's own requeue is turned off.
                                "--no-requeue"};
  if (job.exclusive)
    a.push_back("--exclusive");
  else
    a.push_back(fmt::format("--cpus-per-task={}", std::max(1, job.cpus)));
  if (!c.partition.empty()) a.push_back("--partition=" + c.partition);
  if (!c.account.empty()) a.push_back("--account=" + c.account);
  if (!c.constraint.empty()) a.push_back("--constraint=" + c.constraint);
  if (c.gpus_per_job > 0) a.push_back(fmt::format("--gpus={}", c.gpus_per_job));
  a.insert(a.end(), c.sbatch_args.begin(), c.sbatch_args.end());
  a.push_back(job.script.string());
  return a;
}

Result<std::string> submit_job(const ExecutorConfig& config, const JobRequest& job) {
  auto out = run_slurm(sbatch_argv(config, job));
  if (!out) return out.error();
  // --parsable prints "ID" or "ID;CLUSTER".
  std::string id(core::trim(*out));
  id = id.substr(0, id.find(';'));
  if (id.empty() || id.find_first_not_of("0123456789_") != std::string::npos)
    return Error{fmt::format("sbatch answered '{}', not a job id", id)};
  return id;
}

JobPhase phase_of(const std::string& s) {
  for (const char* w :
       {"PENDING", "CONFIGURING", "RUNNING", "COMPLETING", "SUSPENDED", "REQUEUED", "REQUEUE_HOLD",
        "REQUEUE_FED", "RESIZING", "SIGNALING", "STAGE_OUT", "RESV_DEL_HOLD", "STOPPED"})
    if (s == w) return JobPhase::in_flight;
  if (s == "COMPLETED") return JobPhase::completed;
  // sacct writes "CANCELLED by 0".
  if (s.rfind("CANCELLED", 0) == 0 || s == "NODE_FAIL" || s == "BOOT_FAIL" || s == "PREEMPTED" ||
      s == "REVOKED")
    return JobPhase::lost;
  if (s == "FAILED" || s == "TIMEOUT" || s == "OUT_OF_MEMORY" || s == "DEADLINE" ||
      s == "SPECIAL_EXIT")
    return JobPhase::failed;
  return JobPhase::unknown;
}

Result<std::map<std::string, JobState>> query_jobs(const std::vector<std::string>& ids) {
  std::map<std::string, JobState> states;
  if (ids.empty()) return states;
  auto list = fmt::format("{}", fmt::join(ids, ","));
  auto out =
      run_slurm({"squeue", "--noheader", "--states=all", "--format=%i|%T|%r", "--jobs=" + list});
  // squeue refuses the whole list when one id is no longer known to the controller; sacct below
  // still answers for every id then.
  if (out) {
    std::istringstream in(*out);
    for (std::string line; std::getline(in, line);) {
      auto a = line.find('|'), b = line.rfind('|');
      if (a == std::string::npos || a == b) continue;
      JobState s{line.substr(a + 1, b - a - 1), line.substr(b + 1), JobPhase::unknown};
      s.phase = phase_of(s.state);
      states[line.substr(0, a)] = s;
    }
  }
  std::vector<std::string> missing;
  for (const auto& id : ids)
    if (!states.count(id)) missing.push_back(id);
  if (missing.empty()) return states;
  auto acct = run_slurm({"sacct", "--noheader", "--parsable2", "--allocations",
                         "--format=JobID,State,Reason",
                         "--jobs=" + fmt::format("{}", fmt::join(missing, ","))});
  if (!acct) return states;  // accounting off: they stay unknown
  std::istringstream in(*acct);
  for (std::string line; std::getline(in, line);) {
    auto a = line.find('|');
    if (a == std::string::npos) continue;
    auto b = line.find('|', a + 1);
    JobState s{line.substr(a + 1, b == std::string::npos ? std::string::npos : b - a - 1),
               b == std::string::npos ? "" : line.substr(b + 1), JobPhase::unknown};
    s.phase = phase_of(s.state);
    states[line.substr(0, a)] = s;
  }
  return states;
}

Status cancel_jobs(const std::vector<std::string>& ids) {
  if (ids.empty()) return ok_status();
  std::vector<std::string> argv = {"scancel"};
  argv.insert(argv.end(), ids.begin(), ids.end());
  auto out = run_slurm(argv);
  if (!out) return out.error();
  return ok_status();
}

}  // namespace kforge::eval
