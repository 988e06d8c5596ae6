// kforge list [DIR] [--json]: the tasks of a suite, one line each.
#include <fmt/format.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "kforge/cli/commands.h"
#include "kforge/cli/common.h"
#include "kforge/cli/table.h"
#include "kforge/core/paths.h"
#include "kforge/core/task_loader.h"

namespace kforge::cli {
namespace {

struct ListOptions {
  std::string dir;
  bool json = false;
};

std::string files_of(const core::TaskSpec& t) {
  std::string f = "ref";
  if (std::filesystem::exists(t.baseline_path())) f += " base";
  if (std::filesystem::exists(t.expert_path())) f += " expert";
  if (t.has_generator()) f += " gen";
  return f;
}

int run_list(const ListOptions& o) {
  std::filesystem::path suite = o.dir.empty() ? core::default_suite_dir() : std::filesystem::path(o.dir);
  if (!std::filesystem::is_directory(suite)) throw UsageError(fmt::format("{}: not a folder", suite.string()));
  Table table({"id", "sizes", "default", "files", "title"});
  nlohmann::json out = nlohmann::json::array();
  int broken = 0;
  for (const auto& dir : core::list_task_dirs(suite)) {
    auto spec = core::load_task(dir);
    if (!spec) {
      ++broken;
      fmt::print(stderr, "kforge: {}\n", spec.error().message);
      table.add({dir.filename().string(), "", "", "", "(invalid task.toml: see above)"});
      out.push_back({{"id", dir.filename().string()}, {"error", spec.error().message}});
      continue;
    }
    std::string sizes;
    for (const auto& s : spec->sizes) sizes += (sizes.empty() ? "" : ",") + s.name;
    table.add({spec->id, sizes, spec->default_size, files_of(*spec), spec->title});
    nlohmann::json size_names = nlohmann::json::array();
    for (const auto& s : spec->sizes) size_names.push_back(s.name);
    out.push_back({{"id", spec->id},
                   {"title", spec->title},
                   {"dir", dir.string()},
                   {"sizes", size_names},
                   {"default_size", spec->default_size},
                   {"tags", spec->tags},
                   {"has_baseline", std::filesystem::exists(spec->baseline_path())},
                   {"has_expert", std::filesystem::exists(spec->expert_path())},
                   {"has_generator", spec->has_generator()}});
  }
  if (o.json) fmt::print("{}\n", out.dump(2));
  else fmt::print("{}{} task(s) in {}\n", table.render(), out.size(), suite.string());
  return broken ? 1 : 0;
}

}  // namespace

void add_list(CLI::App& cmd, int& exit_status) {
  auto o = std::make_shared<ListOptions>();
  cmd.add_option("dir", o->dir, "Suite folder (default: bench/jaxbench)");
  cmd.add_flag("--json", o->json, "Print JSON");
  cmd.callback([o, &exit_status] { exit_status = run_list(*o); });
}

}  // namespace kforge::cli
