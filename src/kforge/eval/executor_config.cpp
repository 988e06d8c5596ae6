// kforge.toml's [executor] → ExecutorConfig, every key checked like the model config's.
#include "kforge/eval/executor_config.h"

#include <fmt/format.h>

#include <algorithm>

#include "kforge/core/suggest.h"
#include "kforge/core/toml_checker.h"

namespace kforge::eval {
namespace {

const std::vector<std::string> kKeys = {"kind",       "partition",    "account",       "time_limit",
                                        "constraint", "gpus_per_job", "shared_folder", "max_jobs",
                                        "retries",    "poll_s",       "sbatch_args"};

using Reader = core::TomlChecker;

// Slurm's own forms: MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS.
bool slurm_time(const std::string& t) {
  if (t.empty()) return false;
  return std::all_of(t.begin(), t.end(),
                     [](char c) { return std::isdigit(c) || c == ':' || c == '-'; }) &&
         std::count(t.begin(), t.end(), ':') <= 2 && std::count(t.begin(), t.end(), '-') <= 1;
}

void read_key(Reader& r, std::string_view key, const toml::node& node, ExecutorConfig& c) {
  std::string field = "executor." + std::string(key);
  if (key == "kind") {
    c.kind = r.text(node, field);
    if (c.kind != "local" && c.kind != "slurm")
      r.fail(&node, field, fmt::format("must be local or slurm, not '{}'", c.kind));
  } else if (key == "partition") {
    c.partition = r.text(node, field);
  } else if (key == "account") {
    c.account = r.text(node, field);
  } else if (key == "constraint") {
    c.constraint = r.text(node, field);
  } else if (key == "time_limit") {
    c.time_limit = r.text(node, field);
    if (!r.failed() && !slurm_time(c.time_limit))
      r.fail(&node, field, "must be a Slurm time such as \"30\", \"00:30:00\" or \"1-00:00:00\"");
  } else if (key == "gpus_per_job") {
    c.gpus_per_job = r.whole(node, field, 0, 64);
  } else if (key == "shared_folder") {
    c.shared_folder = r.text(node, field);
    if (!r.failed() && !c.shared_folder.is_absolute())
      r.fail(&node, field, "must be an absolute path (nodes see it at the same path)");
  } else if (key == "max_jobs") {
    c.max_jobs = r.whole(node, field, 1, 10000);
  } else if (key == "retries") {
    c.retries = r.whole(node, field, 0, 10);
  } else if (key == "poll_s") {
    double v = node.is_integer()          ? static_cast<double>(node.as_integer()->get())
               : node.is_floating_point() ? node.as_floating_point()->get()
                                          : -1;
    if (!(v >= 0.05 && v <= 60))
      r.fail(&node, field, "must be a number of seconds from 0.05 to 60");
    c.poll_s = v;
  } else if (key == "sbatch_args") {
    const auto* a = node.as_array();
    if (!a) return r.fail(&node, field, "must be an array of strings");
    for (const auto& item : *a) {
      auto s = r.text(item, field);
      // The job's environment is kforge's to decide: an --export here could hand it API keys.
      if (s.rfind("--export", 0) == 0)
        r.fail(&item, field, "--export is kforge's (jobs get no environment of this process)");
      c.sbatch_args.push_back(s);
    }
  } else {
    r.unknown_key(node, "executor", key, kKeys);
  }
}

}  // namespace

Result<ExecutorConfig> parse_executor_config(std::string_view text,
                                             const std::filesystem::path& source) {
  auto parsed = core::parse_toml(text, source);
  if (!parsed) return parsed.error();
  const toml::table& root = *parsed;
  ExecutorConfig config;
  config.file = source;
  Reader r(source);
  for (const auto& [key, node] : root) {
    std::string name(key.str());
    if (name != "executor" && core::closest_name(name, {"executor"}))
      r.fail(&node, name, "unknown table; did you mean 'executor'?");
  }
  if (const toml::node* n = root.get("executor")) {
    if (!n->is_table())
      r.fail(n, "executor", "must be a table ([executor])");
    else
      for (const auto& [key, node] : *n->as_table()) read_key(r, key.str(), node, config);
  }
  if (r.failed()) return r.error();
  return config;
}

Result<ExecutorConfig> load_executor_config(const std::filesystem::path& path) {
  auto config = core::read_config_text(path);
  if (!config) return config.error();
  if (!*config) return ExecutorConfig{};
  return parse_executor_config((*config)->text, (*config)->file);
}

}  // namespace kforge::eval
