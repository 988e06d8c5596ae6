#pragma once
// Compiler output → structured diagnostics for the debugger agent and for humans:
// (file, line, column, severity, message, the offending source line).

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace kforge::toolchain {

struct Diagnostic {
  std::string file;
  int line = 0;
  int column = 0;
  std::string severity;  // "error", "warning", "note", "fatal error"
  std::string message;
  std::string source_line;  // the text of `line` in `file`, when kforge has the file
};

// Parses GCC's and Clang's "file:line:col: severity: message" format. `sources` maps a file
// name as the compiler prints it (e.g. "kernel.cpp") to its text, to fill source_line.
std::vector<Diagnostic> parse_diagnostics(
    const std::string& compiler_output,
    const std::vector<std::pair<std::string, std::string>>& sources);

int count_errors(const std::vector<Diagnostic>& diagnostics);

// "kernel.cpp:12:5: error: ... \n   12 | source line" for each error (and its notes), capped.
std::string format_errors(const std::vector<Diagnostic>& diagnostics, std::size_t max_errors = 10);

void to_json(nlohmann::json& j, const Diagnostic& d);
void from_json(const nlohmann::json& j, Diagnostic& d);

}  // namespace kforge::toolchain
