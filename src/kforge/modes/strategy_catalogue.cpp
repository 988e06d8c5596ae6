// [[strategy]] tables with id, family, tags and text.
#include "kforge/modes/strategy_catalogue.h"

#include <fmt/format.h>

#include <algorithm>

#include <toml++/toml.h>

#include "kforge/core/paths.h"

namespace kforge::modes {
namespace {

Status read_into(const std::filesystem::path& file, std::vector<Strategy>& out) {
  toml::table root;
  try {
    root = toml::parse_file(file.string());
  } catch (const toml::parse_error& e) {
    return Error{fmt::format("{}:{}:{}: {}", file.string(), e.source().begin.line,
                             e.source().begin.column, e.description())};
  }
  const toml::array* list = root["strategy"].as_array();
  if (!list) return Error{fmt::format("{}: no [[strategy]] entries", file.string())};
  int i = 0;
  for (const auto& node : *list) {
    const toml::table* t = node.as_table();
    auto where = fmt::format("{}: strategy[{}]", file.string(), i++);
    if (!t) return Error{where + ": must be a table"};
    Strategy s{t->get_as<std::string>("id") ? t->get_as<std::string>("id")->get() : "",
               t->get_as<std::string>("family") ? t->get_as<std::string>("family")->get() : "other",
               t->get_as<std::string>("text") ? t->get_as<std::string>("text")->get() : ""};
    if (s.id.empty() || s.text.empty()) return Error{where + ": needs `id` and `text`"};
    if (const toml::array* tags = t->get_as<toml::array>("tags")) {
      for (const auto& tag : *tags) {
        if (!tag.is_string()) return Error{where + ": `tags` must be a list of strings"};
        s.tags.push_back(tag.as_string()->get());
      }
    }
    bool replaced = false;
    for (auto& existing : out)
      if (existing.id == s.id) {
        existing = s;
        replaced = true;
      }
    if (!replaced) out.push_back(std::move(s));
  }
  return ok_status();
}

}  // namespace

bool Strategy::fits(const std::vector<std::string>& task_tags) const {
  if (tags.empty()) return true;
  for (const auto& t : tags)
    if (t == "any" || std::find(task_tags.begin(), task_tags.end(), t) != task_tags.end())
      return true;
  return false;
}

std::vector<Strategy> strategies_for(const std::vector<Strategy>& catalogue,
                                     const std::vector<std::string>& task_tags) {
  std::vector<Strategy> out;
  for (const auto& s : catalogue)
    if (s.fits(task_tags)) out.push_back(s);
  return out;
}

std::filesystem::path default_strategies_file() {
  return core::source_dir() / "strategies" / "cpu.toml";
}

Result<std::vector<Strategy>> load_strategies(const std::filesystem::path& file,
                                              const std::filesystem::path& extra) {
  std::vector<Strategy> out;
  if (auto st = read_into(file, out); !st) return st.error();
  if (!extra.empty()) {
    // A file with `replace = true` replaces the catalogue instead of extending it.
    try {
      if (toml::parse_file(extra.string())["replace"].value_or(false)) out.clear();
    } catch (const toml::parse_error&) {
      // read_into reports the syntax error with its position
    }
    if (auto st = read_into(extra, out); !st) return st.error();
  }
  return out;
}

}  // namespace kforge::modes
