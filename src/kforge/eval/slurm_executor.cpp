// Evaluations as Slurm jobs (slurm_executor.h): a folder per evaluation, one job at a time for
// it, followed until its result appears, submitted again when Slurm lost it.
#include "kforge/eval/slurm_executor.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <chrono>
#include <thread>

#include "kforge/core/fs.h"
#include "kforge/core/hash.h"
#include "kforge/eval/eval_job.h"
#include "kforge/eval/evaluation_json.h"
#include "kforge/eval/secret_seeds.h"

namespace kforge::eval {
namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

Evaluation failed(const TaskContext& ctx, const std::string& reason) {
  Evaluation e;
  e.task_id = ctx.spec().id;
  e.size = ctx.task().size;
  e.verdict = Verdict::runtime_error;
  e.reason = reason;
  return e;
}

// The end of the job's log, for a job that ended without a result.
std::string log_tail(const std::filesystem::path& folder, const std::string& id) {
  auto text = core::read_text(folder / fmt::format("slurm-{}.out", id));
  if (!text || text->empty()) return "";
  auto tail = text->size() > 600 ? text->substr(text->size() - 600) : *text;
  return "; its log ends: " + tail;
}

Status make_private_dir(const std::filesystem::path& d) {
  std::error_code ec;
  std::filesystem::create_directories(d, ec);
  if (ec) return Error{fmt::format("{}: {}", d.string(), ec.message())};
  if (::chmod(d.c_str(), 0700) != 0)
    return Error{fmt::format("{}: cannot be made private", d.string())};
  return ok_status();
}

}  // namespace

struct SlurmExecutor::Job {
  std::string key, id, name;
  std::filesystem::path folder;
  nlohmann::json attempts = nlohmann::json::array();
  bool exclusive = false;
  int cpus = 1;
  std::vector<std::uint64_t> seeds;
  // The record only lets a killed driver adopt this job when resumed; without it the resumed
  // driver submits the job again, which costs a node's time, never a verdict.
  void record() const { (void)write_private(folder / "jobs.json", attempts.dump(2)); }
};

Result<std::unique_ptr<SlurmExecutor>> SlurmExecutor::create(SlurmSetup setup) {
  const auto& shared = setup.config.shared_folder;
  if (shared.empty())
    return Error{
        "the Slurm executor needs a shared folder: shared_folder = \"/path\" under [executor] "
        "in kforge.toml (a folder this machine and every node see at the same path)"};
  if (auto st = make_private_dir(shared / "jobs"); !st)
    return Error{fmt::format("executor.shared_folder: {}", st.error().message)};
  return std::unique_ptr<SlurmExecutor>(new SlurmExecutor(std::move(setup)));
}

SlurmExecutor::~SlurmExecutor() {
  // Jobs nobody waits for any more (an error ended the command) would only occupy nodes.
  // A destructor can report to no one; a job left running ends at its time limit.
  std::vector<std::string> ids(active_.begin(), active_.end());
  (void)cancel_jobs(ids);
}

void SlurmExecutor::say(const std::string& m) const {
  if (setup_.say) setup_.say(m);
}

bool SlurmExecutor::cancelling() const {
  return cancelled_ || (setup_.cancel && setup_.cancel->load());
}

void SlurmExecutor::cancel_all() {
  std::vector<std::string> ids;
  {
    std::lock_guard lock(mu_);
    if (cancelled_.exchange(true)) return;
    ids.assign(active_.begin(), active_.end());
    counts_.cancelled += static_cast<int>(ids.size());
  }
  if (!ids.empty()) say(fmt::format("cancelling {} Slurm job(s)", ids.size()));
  if (auto st = cancel_jobs(ids); !st) say("scancel: " + st.error().message);
  slot_free_.notify_all();
}

SlurmCounts SlurmExecutor::counts() const {
  std::lock_guard lock(mu_);
  return counts_;
}

std::string SlurmExecutor::summary() const {
  auto c = counts();
  return fmt::format(
      "slurm: {} job(s) submitted, {} result(s) taken from an earlier run, {} job(s) adopted, {} "
      "resubmitted after being lost, {} cancelled",
      c.submitted, c.reused, c.adopted, c.retried, c.cancelled);
}

std::filesystem::path SlurmExecutor::folder_for(const std::string& key) {
  std::lock_guard lock(mu_);
  int n = asked_[key]++;
  return setup_.config.shared_folder / "jobs" / fmt::format("{}-{}", key, n);
}

void SlurmExecutor::acquire_slot() {
  std::unique_lock lock(mu_);
  slot_free_.wait(lock, [&] { return in_flight_ < setup_.config.max_jobs || cancelled_; });
  ++in_flight_;
}

void SlurmExecutor::release_slot() {
  {
    std::lock_guard lock(mu_);
    --in_flight_;
  }
  slot_free_.notify_one();
}

JobState SlurmExecutor::state_of(const std::string& id) {
  std::lock_guard lock(mu_);
  // One squeue for every job this process follows, at most every poll_s.
  if (now_s() - states_at_ >= setup_.config.poll_s) {
    std::vector<std::string> ids(active_.begin(), active_.end());
    if (auto s = query_jobs(ids)) states_ = std::move(*s);
    states_at_ = now_s();
  }
  auto it = states_.find(id);
  return it == states_.end() ? JobState{} : it->second;
}

Status SlurmExecutor::prepare(const Job& job, const TaskContext& ctx, const nlohmann::json& spec) {
  if (auto st = make_private_dir(job.folder); !st) return st;
  std::error_code ec;
  // Under its own name: a task's id must match its folder's.
  auto task = job.folder / "task" / ctx.spec().dir.filename();
  if (!std::filesystem::exists(task)) {
    std::filesystem::create_directories(job.folder / "task", ec);
    auto tmp = job.folder / "task.tmp";
    std::filesystem::remove_all(tmp, ec);
    std::filesystem::copy(ctx.spec().dir, tmp, std::filesystem::copy_options::recursive, ec);
    if (!ec) std::filesystem::rename(tmp, task, ec);
    if (ec)
      return Error{
          fmt::format("copying the task folder into {}: {}", job.folder.string(), ec.message())};
  }
  if (auto st = write_private(job.folder / "spec.json", spec.dump()); !st) return st;
  std::string script = fmt::format(
      "#!/bin/sh\n"
      "# kforge: one evaluation, {}. Submitted with --export=NONE: the job has none of the\n"
      "# submitting process's environment, only the kforge settings below.\n",
      job.key);
  for (const auto& line : setup_.node_env) {
    auto eq = line.find('=');
    script += fmt::format("export {}={}\n", line.substr(0, eq), shell_quote(line.substr(eq + 1)));
  }
  // The node's own state folder (caches, scratch), never the shared one.
  script += "export KFORGE_DIR=\"${TMPDIR:-/tmp}/kforge-node-$(id -u)\"\n";
  script += fmt::format("exec {} eval-job {}\n", shell_quote(setup_.kforge.string()),
                        shell_quote(job.folder.string()));
  return write_private(job.folder / "job.sh", script);
}

Result<std::string> SlurmExecutor::submit(Job& job) {
  if (auto st = write_seeds(job.folder / "seeds", job.seeds); !st) return st.error();
  JobRequest r{job.name, job.folder, job.folder / "job.sh", job.exclusive, job.cpus};
  auto id = submit_job(setup_.config, r);
  if (!id) return id.error();
  job.id = *id;
  job.attempts.push_back({{"job", job.id}, {"exclusive", job.exclusive}});
  job.record();
  std::lock_guard lock(mu_);
  active_.insert(job.id);
  states_at_ = -1e9;  // the next look asks Slurm again
  ++counts_.submitted;
  return job.id;
}

Evaluation SlurmExecutor::evaluate(const TaskContext& ctx, const std::string& source,
                                   const std::string& file_name, const EvalOptions& options) {
  EvalJobSpec spec{ctx.spec().id, ctx.task().size, source, file_name, options_to_json(options)};
  Job job;
  job.key =
      setup_.scope.empty() ? spec.key() : core::Hasher().add(spec.key()).add(setup_.scope).hex();
  job.folder = folder_for(job.key);
  job.name = "kforge-" + job.key.substr(0, 12);
  job.exclusive = options.time;
  job.cpus = options.threads > 0 ? options.threads : 1;
  auto result = result_path(job.folder);
  if (std::filesystem::exists(result)) {
    auto text = core::read_text(result);
    auto j = text ? nlohmann::json::parse(*text, nullptr, false) : nlohmann::json();
    if (j.is_object()) {
      std::lock_guard lock(mu_);
      ++counts_.reused;
      return evaluation_from_json(j);
    }
  }
  auto seeds = secret_seeds(ctx.state_dir(), ctx.spec().id, options.check_sets);
  if (!seeds) return failed(ctx, "cluster: " + seeds.error().message);
  job.seeds = *seeds;
  acquire_slot();
  struct Slot {
    SlurmExecutor* x;
    ~Slot() { x->release_slot(); }
  } slot{this};
  if (cancelling()) return failed(ctx, "interrupted before its Slurm job was submitted");
  // A job a killed driver left in flight is adopted, not submitted again.
  if (auto text = core::read_text(job.folder / "jobs.json")) {
    auto a = nlohmann::json::parse(*text, nullptr, false);
    if (a.is_array() && !a.empty()) {
      job.attempts = a;
      std::string last = a.back().value("job", "");
      {
        std::lock_guard lock(mu_);
        active_.insert(last);
        states_at_ = -1e9;
      }
      if (!last.empty() && state_of(last).phase == JobPhase::in_flight) {
        job.id = last;
        std::lock_guard lock(mu_);
        ++counts_.adopted;
      } else {
        std::lock_guard lock(mu_);
        active_.erase(last);
      }
    }
  }
  if (job.id.empty()) {
    if (auto st = prepare(job, ctx, spec.to_json()); !st)
      return failed(ctx, "cluster: " + st.error().message);
    auto id = submit(job);
    if (!id) return failed(ctx, "cluster: " + id.error().message);
    say(fmt::format(
        "Slurm job {} ({}{})", *id, job.exclusive ? "timing, a node of its own" : "shared",
        job.attempts.size() > 1 ? fmt::format(", attempt {}", job.attempts.size()) : ""));
  }
  auto e = follow(job, ctx);
  std::lock_guard lock(mu_);
  active_.erase(job.id);
  return e;
}

Evaluation SlurmExecutor::follow(Job& job, const TaskContext& ctx) {
  auto result = result_path(job.folder);
  double ended_at = -1;
  while (true) {
    if (std::filesystem::exists(result)) {
      auto text = core::read_text(result);
      auto j = text ? nlohmann::json::parse(*text, nullptr, false) : nlohmann::json();
      if (!j.is_object())
        return failed(ctx, fmt::format("cluster: {} is not an evaluation", result.string()));
      job.attempts.back()["ended"] = "COMPLETED";
      job.record();
      return evaluation_from_json(j);
    }
    if (cancelling()) {
      cancel_all();
      return failed(ctx, fmt::format("interrupted: Slurm job {} cancelled", job.id));
    }
    auto s = state_of(job.id);
    if (s.phase == JobPhase::in_flight) {
      ended_at = -1;
    } else {
      // A result lands on a shared file system a moment after the job ends; a job the controller
      // has not listed yet is not lost either. Wait a little before judging.
      if (ended_at < 0) ended_at = now_s();
      double grace = s.phase == JobPhase::completed ? 15 : s.phase == JobPhase::unknown ? 30 : 2;
      if (now_s() - ended_at >= grace && !std::filesystem::exists(result)) {
        std::string how = s.state.empty() ? "unknown to squeue and sacct" : s.state;
        job.attempts.back()["ended"] = how;
        job.attempts.back()["reason"] = s.reason;
        job.record();
        {
          std::lock_guard lock(mu_);
          active_.erase(job.id);
        }
        bool lost = s.phase == JobPhase::lost || s.phase == JobPhase::unknown;
        if (!lost || static_cast<int>(job.attempts.size()) > setup_.config.retries)
          return failed(
              ctx, fmt::format("cluster: Slurm job {} ended {} without a result{}{}", job.id, how,
                               lost ? fmt::format(" (after {} attempts)", job.attempts.size()) : "",
                               log_tail(job.folder, job.id)));
        say(fmt::format("Slurm job {} was lost ({}); submitting it again", job.id, how));
        auto id = submit(job);
        if (!id) return failed(ctx, "cluster: " + id.error().message);
        std::lock_guard lock(mu_);
        ++counts_.retried;
        ended_at = -1;
      }
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(setup_.config.poll_s));
  }
}

}  // namespace kforge::eval
