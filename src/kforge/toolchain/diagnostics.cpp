// Line-oriented parse of compiler diagnostics.
#include "kforge/toolchain/diagnostics.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "kforge/core/utf8.h"

namespace kforge::toolchain {
namespace {

std::string line_of(const std::string& text, int line) {
  std::istringstream in(text);
  std::string s;
  for (int i = 1; std::getline(in, s); ++i)
    if (i == line) return s;
  return {};
}

}  // namespace

std::vector<Diagnostic> parse_diagnostics(
    const std::string& output, const std::vector<std::pair<std::string, std::string>>& sources) {
  static const std::regex pattern(R"(^(.+?):(\d+):(\d+): (fatal error|error|warning|note): (.*)$)");
  // nvcc's front end (cudafe++): "kernel.cu(12): error: ..." or "kernel.cu(7): warning #177-D:
  // ..."; no column. Host-side code it hands to g++ is reported in g++'s format above.
  static const std::regex nvcc_pattern(
      R"(^(.+?)\((\d+)\): (catastrophic error|error|warning|remark)(?: #[0-9A-Z-]+)?: (.*)$)");
  std::vector<Diagnostic> out;
  std::istringstream in(output);
  std::string line;
  while (std::getline(in, line)) {
    std::smatch m;
    Diagnostic d;
    if (std::regex_match(line, m, pattern)) {
      d = Diagnostic{m[1], std::stoi(m[2]), std::stoi(m[3]), m[4], m[5], {}};
    } else if (std::regex_match(line, m, nvcc_pattern)) {
      std::string severity = m[3];
      if (severity == "catastrophic error") severity = "fatal error";
      if (severity == "remark") severity = "note";
      d = Diagnostic{m[1], std::stoi(m[2]), 0, severity, m[4], {}};
    } else {
      continue;
    }
    for (const auto& [name, text] : sources) {
      std::string file = d.file;
      if (file == name ||
          (file.size() > name.size() &&
           file.compare(file.size() - name.size() - 1, std::string::npos, "/" + name) == 0)) {
        d.file = name;
        d.source_line = core::valid_utf8(line_of(text, d.line));  // the source may not be UTF-8
      }
    }
    out.push_back(std::move(d));
  }
  return out;
}

int count_errors(const std::vector<Diagnostic>& diagnostics) {
  int n = 0;
  for (const auto& d : diagnostics) n += (d.severity == "error" || d.severity == "fatal error");
  return n;
}

std::string format_errors(const std::vector<Diagnostic>& diagnostics, std::size_t max_errors) {
  std::string s;
  std::size_t errors = 0;
  bool in_error = false;
  for (const auto& d : diagnostics) {
    bool is_error = d.severity == "error" || d.severity == "fatal error";
    if (is_error) {
      if (++errors > max_errors) break;
      in_error = true;
    } else if (d.severity != "note" || !in_error) {
      in_error = false;
      continue;
    }
    // No file: a tool said what failed but not where (a Python error with no kernel frame).
    const std::string where = d.file.empty() ? ""
                              : d.column > 0 ? fmt::format("{}:{}:{}: ", d.file, d.line, d.column)
                                             : fmt::format("{}:{}: ", d.file, d.line);
    s += fmt::format("{}{}: {}\n", where, d.severity, d.message);
    if (!d.source_line.empty()) s += fmt::format("  {:>4} | {}\n", d.line, d.source_line);
  }
  std::size_t total = static_cast<std::size_t>(count_errors(diagnostics));
  if (total > max_errors) s += fmt::format("... and {} more errors\n", total - max_errors);
  return s;
}

void to_json(nlohmann::json& j, const Diagnostic& d) {
  j = {{"file", d.file},         {"line", d.line},       {"column", d.column},
       {"severity", d.severity}, {"message", d.message}, {"source_line", d.source_line}};
}

void from_json(const nlohmann::json& j, Diagnostic& d) {
  d.file = j.value("file", "");
  d.line = j.value("line", 0);
  d.column = j.value("column", 0);
  d.severity = j.value("severity", "");
  d.message = j.value("message", "");
  d.source_line = j.value("source_line", "");
}

}  // namespace kforge::toolchain
