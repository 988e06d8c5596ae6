// kforge completion bash|zsh|fish: a completion script for the shell, generated from the commands.
// The scripts call back `kforge completion --candidates tasks|sizes` (hidden) for the words that
// depend on the suite in the folder one is in.
#include <fmt/format.h>

#include <set>

#include "kforge/cli/commands.h"
#include "kforge/cli/common.h"
#include "kforge/cli/completion.h"
#include "kforge/cli/option_registry.h"
#include "kforge/core/paths.h"
#include "kforge/core/task_loader.h"

namespace kforge::cli {
namespace {

struct CompletionOptions {
  std::string shell, candidates;
};

// Task ids of the default suite, one per line; folder names only, so that a TAB is quick.
void print_tasks() {
  for (const auto& dir : core::list_task_dirs(core::default_suite_dir()))
    fmt::print("{}\n", dir.filename().string());
}

// The size names the default suite's tasks define (ci, cpu, full, and any other), one per line.
void print_sizes() {
  std::set<std::string> names;
  for (const auto& dir : core::list_task_dirs(core::default_suite_dir()))
    if (auto spec = core::load_task(dir))
      for (const auto& s : spec->sizes) names.insert(s.name);
  for (const auto& n : names) fmt::print("{}\n", n);
}

int run_completion(const CompletionOptions& o, const CLI::App& root) {
  if (o.candidates == "tasks")
    print_tasks();
  else if (o.candidates == "sizes")
    print_sizes();
  else if (o.shell.empty())
    throw UsageError("kforge completion needs a shell: bash, zsh or fish");
  else {
    const auto model = completion_model(root);
    const std::string program = kRootCommand;
    fmt::print("{}", o.shell == "bash"  ? bash_completion(model, program)
                     : o.shell == "zsh" ? zsh_completion(model, program)
                                        : fish_completion(model, program));
  }
  return 0;
}

}  // namespace

void add_completion(CommandLine& cmd) {
  auto o = std::make_shared<CompletionOptions>();
  cmd.bind("shell", o->shell);
  cmd.bind("candidates", o->candidates);
  cmd.on_run_with_app([o](const CLI::App& root) { return run_completion(*o, root); });
}

}  // namespace kforge::cli
