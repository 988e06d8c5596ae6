#pragma once
// Output for humans is a table: columns sized to their content, numbers right-aligned.

#include <string>
#include <vector>

namespace kforge::cli {

class Table {
 public:
  explicit Table(std::vector<std::string> header, std::vector<bool> right_align = {});
  void add(std::vector<std::string> row);
  std::string render() const;

 private:
  std::vector<std::string> header_;
  std::vector<bool> right_;
  std::vector<std::vector<std::string>> rows_;
};

// A two-column "key   value" block (for one object, like an evaluation).
std::string key_values(const std::vector<std::pair<std::string, std::string>>& rows);

// "1 task", "3 tasks": a count with its noun, plural by adding "s".
std::string count_of(long n, const std::string& noun);

// Columns a cell takes on a terminal: UTF-8 aware (for "×", "–", "…"), and blind to the escape
// codes of a painted cell (colour.h), which take none.
std::size_t display_width(const std::string& s);

}  // namespace kforge::cli
