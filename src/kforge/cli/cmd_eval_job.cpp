// kforge eval-job FOLDER: one evaluation of a cluster job, run on its node (slurm_executor.h).
// It takes the sealed seeds first (the file is gone before anything is compiled or run), then
// evaluates as `kforge eval` would and leaves result.json in FOLDER. Exit status: 0 when a result
// was written, whatever its verdict; 70 when none could be (the driver reports the log's tail).
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "kforge/cli/commands.h"
#include "kforge/cli/common.h"
#include "kforge/cli/settings.h"
#include "kforge/core/fs.h"
#include "kforge/core/paths.h"
#include "kforge/eval/eval_job.h"
#include "kforge/eval/task_context.h"

namespace kforge::cli {
namespace {

// The node's own state folder: caches and scratch, private, outside the shared folder.
std::filesystem::path node_state_dir() {
  auto d = core::state_dir();  // the job script points KFORGE_DIR at the node's temp folder
  std::filesystem::create_directories(d);
  ::chmod(d.c_str(), 0700);
  return d;
}

int run_eval_job(const std::filesystem::path& folder) {
  auto seeds = eval::take_seeds(folder / "seeds");
  // A job that can read an API key could leak it; the executor submits with --export=NONE.
  if (auto keys = secret_variables_present(); !keys.empty())
    throw InternalError(fmt::format(
        "refusing to evaluate: this job's environment holds {} (submit with --export=NONE)",
        keys.front()));
  if (!seeds) throw InternalError(fmt::format("{}: {}", folder.string(), seeds.error().message));
  auto text = core::read_text(folder / "spec.json");
  if (!text) throw InternalError(text.error().message);
  auto spec = eval::EvalJobSpec::from_json(nlohmann::json::parse(*text, nullptr, false));
  if (!spec) throw InternalError(fmt::format("{}: {}", folder.string(), spec.error().message));
  std::filesystem::path task_dir;
  for (const auto& entry : std::filesystem::directory_iterator(folder / "task"))
    if (entry.is_directory()) task_dir = entry.path();
  auto task = load_task_arg(task_dir.string());
  auto compiler = make_compiler();
  auto ctx = eval::TaskContext::create(task, spec->size, *compiler, node_state_dir());
  if (!ctx) throw InternalError(ctx.error().message);
  auto opt = eval::options_from_json(spec->options);
  opt.check_seeds = *seeds;
  opt.progress = [](std::string_view m) { fmt::print(stderr, "  … {}\n", m); };
  auto lock = make_machine_lock();
  opt.machine_lock = lock.get();
  opt.quiet_waiter = &quiet_waiter();
  std::optional<eval::MachineProfile> machine;
  if (opt.time)
    if (auto m = this_machine(lock.get())) machine = *m;
  opt.machine = machine ? &*machine : nullptr;
  auto e = eval::evaluate_here(*ctx, spec->source, spec->file_name, opt);
  if (auto st = eval::write_job_result(folder, e); !st) throw InternalError(st.error().message);
  fmt::print(stderr, "kforge eval-job: {} {}: {}\n", spec->task_id, eval::verdict_name(e.verdict),
             e.reason);
  return 0;
}

}  // namespace

void add_eval_job(CommandLine& cmd) {
  auto folder = std::make_shared<std::string>();
  cmd.bind("job-folder", *folder);
  cmd.require("job-folder");
  cmd.on_run([folder] { return run_eval_job(*folder); });
}

}  // namespace kforge::cli
