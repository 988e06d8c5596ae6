// The one TOML checker: positions, first mistake kept, unknown keys named with their table.
#include "kforge/core/toml_checker.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "kforge/core/fs.h"
#include "kforge/core/suggest.h"

namespace kforge::core {

Result<std::optional<ConfigText>> read_config_text(const std::filesystem::path& path) {
  std::filesystem::path file = path;
  if (file.empty()) {
    if (!std::filesystem::exists("kforge.toml")) return std::optional<ConfigText>();
    file = "kforge.toml";
  }
  if (!std::filesystem::exists(file))
    return Error{fmt::format("{}: no such config file", file.string())};
  auto text = read_text(file);
  if (!text) return text.error();
  return std::optional<ConfigText>(ConfigText{file, std::move(*text)});
}

Result<toml::table> parse_toml(std::string_view text, const std::filesystem::path& source) {
  try {
    return toml::parse(text, source.string());
  } catch (const toml::parse_error& e) {
    return Error{fmt::format("{}:{}:{}: {}", source.string(), e.source().begin.line,
                             e.source().begin.column, e.description())};
  }
}

void TomlChecker::fail(const toml::node* node, const std::string& field,
                       const std::string& message) {
  if (!error_.empty()) return;
  std::string where = file_.string();
  if (node && node->source().begin.line > 0)
    where += fmt::format(":{}:{}", node->source().begin.line, node->source().begin.column);
  error_ = fmt::format("{}: {}: {}", where, field, message);
}

void TomlChecker::unknown_key(const toml::node& node, const std::string& table,
                              std::string_view key, const std::vector<std::string>& allowed,
                              std::string_view note) {
  const std::string field = table.empty() ? std::string(key) : table + "." + std::string(key);
  const std::string where = table.empty() ? "at the top level" : "in [" + table + "]";
  fail(&node, field,
       fmt::format("unknown key {} (allowed: {}{}{}){}", where, fmt::join(allowed, ", "),
                   note.empty() ? "" : "; ", note, did_you_mean(key, allowed)));
}

void TomlChecker::only_keys(const toml::table& t, const std::string& table,
                            const std::vector<std::string>& allowed, std::string_view note) {
  for (const auto& [key, node] : t)
    if (std::find(allowed.begin(), allowed.end(), key.str()) == allowed.end())
      unknown_key(node, table, key.str(), allowed, note);
}

const toml::table* TomlChecker::table(const toml::table& root, std::string_view name) {
  const toml::node* n = root.get(name);
  if (!n) return nullptr;
  if (!n->is_table()) {
    fail(n, std::string(name), "must be a table ([" + std::string(name) + "])");
    return nullptr;
  }
  return n->as_table();
}

double TomlChecker::number(const toml::node& n, const std::string& field) {
  if (n.is_integer()) return static_cast<double>(n.as_integer()->get());
  if (n.is_floating_point()) return n.as_floating_point()->get();
  fail(&n, field, "must be a number");
  return 0;
}

std::string TomlChecker::text(const toml::node& n, const std::string& field) {
  if (n.is_string()) return n.as_string()->get();
  fail(&n, field, "must be a string");
  return "";
}

int TomlChecker::whole(const toml::node& n, const std::string& field, int low, int high) {
  if (n.is_integer() && n.as_integer()->get() >= low && n.as_integer()->get() <= high)
    return static_cast<int>(n.as_integer()->get());
  fail(&n, field, fmt::format("must be a whole number from {} to {}", low, high));
  return low;
}

}  // namespace kforge::core
