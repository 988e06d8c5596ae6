// -fopt-info lines look like "kernel.cpp:12:23: optimized: loop vectorized using 32 byte vectors"
// or "kernel.cpp:20:5: missed: not vectorized: complicated access pattern."
#include "kforge/toolchain/vectorization_report.h"

#include <fmt/format.h>

#include <map>
#include <regex>
#include <sstream>

namespace kforge::toolchain {

std::vector<VectorRemark> parse_vector_remarks(const std::string& output, const std::string& file_name, const std::string& source) {
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
    if (file != file_name && !(file.size() > file_name.size() && file.compare(file.size() - file_name.size() - 1, std::string::npos, "/" + file_name) == 0))
      continue;
    int line = std::stoi(m[2]);
    bool optimized = m[4] == "optimized";
    std::string detail = m[5];
    if (!optimized && detail.find("not vectorized") == std::string::npos && detail.find("couldn't vectorize") == std::string::npos) continue;
    auto& r = by_line[line];
    if (r.line == 0 || (optimized && !r.vectorized) || (!r.vectorized && r.detail.find("couldn't vectorize") == 0)) {
      if (optimized && detail.find("vectorized") == std::string::npos) continue;  // unrelated "optimized" notes
      r = {line, optimized, detail, line >= 1 && line <= static_cast<int>(lines.size()) ? lines[line - 1] : ""};
    }
  }
  std::vector<VectorRemark> out;
  for (auto& [line, r] : by_line) out.push_back(r);
  return out;
}

std::string format_vector_remarks(const std::vector<VectorRemark>& remarks, std::size_t max_lines) {
  if (remarks.empty()) return "(no loop remarks from the compiler: no loops, or a compiler that does not report them)\n";
  std::string s;
  for (std::size_t i = 0; i < remarks.size() && i < max_lines; ++i) {
    const auto& r = remarks[i];
    std::string src = r.source_line;
    src.erase(0, src.find_first_not_of(" \t"));
    s += fmt::format("line {:>4}: {} — {}\n      | {}\n", r.line, r.vectorized ? "vectorized" : "NOT vectorized", r.detail, src);
  }
  if (remarks.size() > max_lines) s += fmt::format("… and {} more\n", remarks.size() - max_lines);
  return s;
}

}  // namespace kforge::toolchain
