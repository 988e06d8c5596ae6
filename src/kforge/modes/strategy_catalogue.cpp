// [[strategy]] tables with id, family, tags, requires and text, and which of them a task is
// offered.
#include "kforge/modes/strategy_catalogue.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>

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
    for (auto [key, list] : {std::pair{"tags", &s.tags}, std::pair{"requires", &s.needs}})
      if (const toml::array* items = t->get_as<toml::array>(key)) {
        for (const auto& item : *items) {
          if (!item.is_string())
            return Error{fmt::format("{}: `{}` must be a list of strings", where, key)};
          list->push_back(item.as_string()->get());
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

bool keeps_state_across_calls(const std::string& text) {
  std::string t = text;
  std::transform(t.begin(), t.end(), t.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const char* phrase : {"across calls", "between calls", "from call to call", "previous call",
                             "later calls", "persist across"})
    if (t.find(phrase) != std::string::npos) return true;
  return false;
}

std::string Strategy::why_not(const std::vector<std::string>& features) const {
  auto has = [&](const std::string& f) {
    return std::find(features.begin(), features.end(), f) != features.end();
  };
  if (keeps_state_across_calls(text)) return "keeps state across calls, which the rules forbid";
  if (!tags.empty() && std::none_of(tags.begin(), tags.end(),
                                    [&](const std::string& t) { return t == "any" || has(t); }))
    return fmt::format("for tasks tagged {}", fmt::join(tags, ", "));
  for (const auto& need : needs)
    if (!has(need)) return fmt::format("needs {}, which the task does not have", need);
  return "";
}

std::vector<Strategy> strategies_for(const std::vector<Strategy>& catalogue,
                                     const std::vector<std::string>& features) {
  std::vector<Strategy> out;
  for (const auto& s : catalogue)
    if (s.fits(features)) out.push_back(s);
  return out;
}

std::vector<std::string> strategies_left_out(const std::vector<Strategy>& catalogue,
                                             const std::vector<std::string>& features) {
  std::vector<std::string> out;
  for (const auto& s : catalogue)
    if (auto why = s.why_not(features); !why.empty()) out.push_back(s.id + ": " + why);
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
