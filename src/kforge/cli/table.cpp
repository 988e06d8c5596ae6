// Plain-text tables.
#include "kforge/cli/table.h"

#include <algorithm>

namespace kforge::cli {

std::size_t display_width(const std::string& s) {
  std::size_t w = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\x1b' && i + 1 < s.size() &&
        s[i + 1] == '[') {  // CSI: ESC [ parameters, then a final byte @ to ~
      for (i += 2; i < s.size() && (s[i] < 0x40 || s[i] > 0x7E); ++i) {
      }
      continue;
    }
    w += (static_cast<unsigned char>(s[i]) & 0xC0) != 0x80;
  }
  return w;
}

namespace {
std::string pad(const std::string& s, std::size_t width, bool right) {
  std::size_t w = display_width(s);
  std::string fill(width > w ? width - w : 0, ' ');
  return right ? fill + s : s + fill;
}
}  // namespace

Table::Table(std::vector<std::string> header, std::vector<bool> right_align)
    : header_(std::move(header)), right_(std::move(right_align)) {
  right_.resize(header_.size(), false);
}

void Table::add(std::vector<std::string> row) {
  row.resize(header_.size());
  rows_.push_back(std::move(row));
}

std::string Table::render() const {
  std::vector<std::size_t> width(header_.size());
  for (std::size_t c = 0; c < header_.size(); ++c) {
    width[c] = display_width(header_[c]);
    for (const auto& r : rows_) width[c] = std::max(width[c], display_width(r[c]));
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string s;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      bool last = c + 1 == cells.size();
      s += last && !right_[c] ? cells[c] : pad(cells[c], width[c], right_[c]);
      if (!last) s += "  ";
    }
    return s + "\n";
  };
  std::string out = line(header_);
  std::string rule;
  for (std::size_t c = 0; c < width.size(); ++c)
    rule += std::string(width[c], '-') + (c + 1 < width.size() ? "  " : "");
  out += rule + "\n";
  for (const auto& r : rows_) out += line(r);
  return out;
}

std::string key_values(const std::vector<std::pair<std::string, std::string>>& rows) {
  std::size_t w = 0;
  for (const auto& [k, v] : rows) w = std::max(w, display_width(k));
  std::string out;
  for (const auto& [k, v] : rows) {
    // Continuation lines of a multi-line value are indented under the value column.
    std::string value = v;
    std::string indent(w + 2, ' ');
    for (std::size_t p = value.find('\n'); p != std::string::npos && p + 1 < value.size();
         p = value.find('\n', p + indent.size() + 1))
      value.insert(p + 1, indent);
    out += pad(k, w, false) + "  " + value + (value.empty() || value.back() != '\n' ? "\n" : "");
  }
  return out;
}

std::string count_of(long n, const std::string& noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

}  // namespace kforge::cli
