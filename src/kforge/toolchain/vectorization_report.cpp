// -fopt-info lines look like "kernel.cpp:12:23: optimized: loop vectorized using 32 byte vectors"
// or "kernel.cpp:20:5: missed: not vectorized: complicated access pattern."
#include "kforge/toolchain/vectorization_report.h"

#include <fmt/format.h>

#include <map>
#include <regex>
#include <sstream>

namespace kforge::toolchain {

// Walks from `line` to the end of the statement there: the closing brace of its body, or its first
// ';' outside parentheses when it has no braces (nested unbraced loops included). Comments after
// // are skipped; string literals are rare enough in kernels to ignore.
bool uses_intrinsics(const std::vector<std::string>& lines, int line) {
  int parens = 0, braces = 0;
  bool opened = false;
  for (int i = line - 1; i >= 0 && i < static_cast<int>(lines.size()) && i < line + 400; ++i) {
    std::string code = lines[i].substr(0, lines[i].find("//"));
    if (code.find("_mm") != std::string::npos) return true;
    for (char c : code) {
      if (c == '(') ++parens;
      if (c == ')') --parens;
      if (c == '{') ++braces, opened = true;
      if (c == '}') --braces;
      if (opened && braces <= 0) return false;
      if (!opened && parens <= 0 && c == ';') return false;
    }
  }
  return false;
}

std::vector<VectorRemark> parse_vector_remarks(const std::string& output,
                                               const std::string& file_name,
                                               const std::string& source) {
  static const std::regex pattern(R"(^(.+?):(\d+):(\d+): (optimized|missed): (.*)$)");
  std::vector<std::string> lines;
  {
    std::istringstream in(source);
    for (std::string l; std::getline(in, l);) lines.push_back(l);
  }
  std::map<int, VectorRemark> by_line;
  std::istringstream in(output);
  for (std::string l; std::getline(in, l);) {
    std::smatch m;
    if (!std::regex_match(l, m, pattern)) continue;
    std::string file = m[1];
    if (file != file_name &&
        !(file.size() > file_name.size() && file.compare(file.size() - file_name.size() - 1,
                                                         std::string::npos, "/" + file_name) == 0))
      continue;
    int line = std::stoi(m[2]);
    bool optimized = m[4] == "optimized";
    std::string detail = m[5];
    if (!optimized && detail.find("not vectorized") == std::string::npos &&
        detail.find("couldn't vectorize") == std::string::npos)
      continue;
    auto& r = by_line[line];
    if (r.line == 0 || (optimized && !r.vectorized) ||
        (!r.vectorized && r.detail.find("couldn't vectorize") == 0)) {
      if (optimized && detail.find("vectorized") == std::string::npos)
        continue;  // unrelated "optimized" notes
      r = {line, optimized, detail,
           line >= 1 && line <= static_cast<int>(lines.size()) ? lines[line - 1] : ""};
    }
  }
  std::vector<VectorRemark> out;
  for (auto& [line, r] : by_line) {
    r.intrinsics = uses_intrinsics(lines, line);
    out.push_back(r);
  }
  return out;
}

std::string format_vector_remarks(const std::vector<VectorRemark>& remarks, std::size_t max_lines) {
  if (remarks.empty())
    return "(no loop remarks from the compiler: no loops, or a compiler that does not report "
           "them)\n";
  std::string s;
  std::size_t shown = 0, left = 0, by_hand = 0;
  for (const auto& r : remarks) {
    if (r.intrinsics) {
      ++by_hand;
      continue;
    }
    if (shown == max_lines) {
      ++left;
      continue;
    }
    ++shown;
    std::string src = r.source_line;
    src.erase(0, src.find_first_not_of(" \t"));
    s += fmt::format("line {:>4}: {} — {}\n      | {}\n", r.line,
                     r.vectorized ? "vectorized" : "NOT vectorized", r.detail, src);
  }
  if (left) s += fmt::format("… and {} more\n", left);
  if (by_hand)
    s += fmt::format(
        "({} remark(s) on loops written with intrinsics left out: they are vectorized by hand)\n",
        by_hand);
  return s;
}

}  // namespace kforge::toolchain
