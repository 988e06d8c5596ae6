// --executor and [executor] → the executor (executor_setup.h).
#include "kforge/cli/executor_setup.h"

#include <fmt/format.h>

#include "kforge/cli/common.h"
#include "kforge/cli/settings.h"
#include "kforge/eval/executor_config.h"
#include "kforge/eval/slurm_executor.h"
#include "kforge/llm/interrupt.h"

namespace kforge::cli {

std::unique_ptr<eval::Executor> make_executor(const std::string& flag,
                                              const std::string& config_path,
                                              const std::string& scope) {
  auto config = eval::load_executor_config(config_path);
  if (!config) throw UsageError(config.error().message);
  std::string kind = flag.empty() ? config->kind : flag;
  if (kind == "local") return nullptr;
  if (kind != "slurm")
    throw UsageError(fmt::format("--executor must be local or slurm, not '{}'", kind));
  eval::SlurmSetup setup;
  setup.config = *config;
  std::error_code ec;
  setup.kforge = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw InternalError("cannot find the kforge binary to run on the nodes: " + ec.message());
  setup.node_env = current_settings().node_env;
  setup.scope = scope;
  // Ctrl-C cancels the jobs in flight (scancel) and ends the waits; a second one ends kforge.
  setup.cancel = llm::install_interrupt_handler();
  setup.say = [](std::string_view m) { progress(m); };
  auto executor = eval::SlurmExecutor::create(std::move(setup));
  if (!executor) throw UsageError(executor.error().message);
  return std::move(*executor);
}

}  // namespace kforge::cli
