#pragma once
// Reading a TOML file a user wrote (kforge.toml, task.toml) with every key checked: the first
// mistake is kept with the file, line, column and dotted key it concerns, and an unknown key names
// its table and the keys that table allows (with the closest one), since a typo silently ignored
// would leave a setting at its default. One checker for every layer that reads such a file.

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <toml++/toml.h>

#include "kforge/core/result.h"

namespace kforge::core {

// The text of kforge.toml: `path` when given (its absence is an error), else ./kforge.toml when
// there is one; nullopt when no file is named and none is here (every setting at its default).
struct ConfigText {
  std::filesystem::path file;
  std::string text;
};
Result<std::optional<ConfigText>> read_config_text(const std::filesystem::path& path);

// `text` parsed as TOML; a syntax error is "FILE:LINE:COLUMN: what".
Result<toml::table> parse_toml(std::string_view text, const std::filesystem::path& source);

class TomlChecker {
 public:
  explicit TomlChecker(std::filesystem::path file) : file_(std::move(file)) {}

  // Records "FILE:LINE:COL: FIELD: MESSAGE" (the node's position when it has one) unless a
  // mistake was already recorded: the first one is the one to fix.
  void fail(const toml::node* node, const std::string& field, const std::string& message);
  bool failed() const { return !error_.empty(); }
  Error error() const { return Error{error_}; }

  // Key `key` of table `table` ("" = the top level) is not one of `allowed`: "TABLE.KEY: unknown
  // key in [TABLE] (allowed: A, B, C[; NOTE]); did you mean 'B'?".
  void unknown_key(const toml::node& node, const std::string& table, std::string_view key,
                   const std::vector<std::string>& allowed, std::string_view note = "");
  // Every key of `t` not in `allowed` is an unknown_key.
  void only_keys(const toml::table& t, const std::string& table,
                 const std::vector<std::string>& allowed, std::string_view note = "");

  // Root's table `name`, or nullptr when absent; a value that is not a table is a mistake.
  const toml::table* table(const toml::table& root, std::string_view name);
  // The node as a number (integer or float), a string, or a whole number within [low, high];
  // anything else is a mistake naming what was expected (and a neutral value is returned).
  double number(const toml::node& n, const std::string& field);
  std::string text(const toml::node& n, const std::string& field);
  int whole(const toml::node& n, const std::string& field, int low, int high);

 private:
  std::filesystem::path file_;
  std::string error_;
};

}  // namespace kforge::core
