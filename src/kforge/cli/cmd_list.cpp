// kforge list [DIR] [--json]: the tasks of a suite, one line each.
#include <fmt/format.h>

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
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
  std::vector<std::string> tags;  // a task is listed when it has every one
  bool json = false;
};

bool has_tags(const core::TaskSpec& t, const std::vector<std::string>& wanted) {
  for (const auto& w : wanted)
    if (std::find(t.tags.begin(), t.tags.end(), w) == t.tags.end()) return false;
  return true;
}

// Columns left for the title on a terminal (0: not a terminal, no limit).
std::size_t terminal_columns() {
  winsize ws{};
  if (!isatty(1) || ioctl(1, TIOCGWINSZ, &ws) != 0) return 0;
  return ws.ws_col;
}

// Cuts `text` to `width` display columns (UTF-8 aware), marking the cut with an ellipsis.
std::string fit(const std::string& text, std::size_t width) {
  std::size_t cols = 0, i = 0;
  for (; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) continue;  // continuation byte
    if (++cols > width) break;
  }
  if (i >= text.size() || width == 0) return text;
  std::size_t cut = i;
  while (cut > 0 && cols > width - 1) {  // make room for the ellipsis
    --cut;
    if ((static_cast<unsigned char>(text[cut]) & 0xC0) != 0x80) --cols;
  }
  return text.substr(0, cut) + "…";
}

std::string files_of(const core::TaskSpec& t) {
  std::string f = "ref";
  if (std::filesystem::exists(t.baseline_path())) f += " base";
  if (std::filesystem::exists(t.expert_path())) f += " expert";
  if (t.has_generator()) f += " gen";
  return f;
}

int run_list(const ListOptions& o) {
  std::filesystem::path suite =
      o.dir.empty() ? core::default_suite_dir() : std::filesystem::path(o.dir);
  if (!std::filesystem::is_directory(suite))
    throw UsageError(fmt::format("{}: not a folder", suite.string()));
  Table table({"id", "sizes", "default", "files", "title"});
  nlohmann::json out = nlohmann::json::array();
  int broken = 0;
  std::vector<std::array<std::string, 5>> rows;
  for (const auto& dir : core::list_task_dirs(suite)) {
    auto spec = core::load_task(dir);
    if (!spec) {
      ++broken;
      fmt::print(stderr, "kforge: {}\n", spec.error().message);
      rows.push_back({dir.filename().string(), "", "", "", "(invalid task.toml: see above)"});
      out.push_back({{"id", dir.filename().string()}, {"error", spec.error().message}});
      continue;
    }
    if (!has_tags(*spec, o.tags)) continue;
    std::string sizes;
    for (const auto& s : spec->sizes) sizes += (sizes.empty() ? "" : ",") + s.name;
    rows.push_back({spec->id, sizes, spec->default_size, files_of(*spec), spec->title});
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
  // On a terminal the title column takes what the other columns leave, so each task is one line.
  std::size_t others = 0;
  for (std::size_t c = 0; c < 4; ++c) {
    std::size_t w = std::string_view(c == 0   ? "id"
                                     : c == 1 ? "sizes"
                                     : c == 2 ? "default"
                                              : "files")
                        .size();
    for (const auto& r : rows) w = std::max(w, r[c].size());
    others += w + 2;
  }
  const std::size_t columns = terminal_columns();
  for (auto& r : rows) {
    if (columns > others + 10) r[4] = fit(r[4], columns - others);
    table.add({r[0], r[1], r[2], r[3], r[4]});
  }
  if (o.json)
    fmt::print("{}\n", out.dump(2));
  else
    fmt::print("{}{} task(s) in {}\n", table.render(), out.size(), suite.string());
  return broken ? 1 : 0;
}

}  // namespace

void add_list(CommandLine& cmd) {
  auto o = std::make_shared<ListOptions>();
  cmd.bind("suite-dir", o->dir);
  cmd.bind("tag", o->tags);
  cmd.bind("json", o->json);
  cmd.on_run([o] { return run_list(*o); });
}

}  // namespace kforge::cli
