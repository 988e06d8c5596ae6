// editline on a terminal, getline otherwise.
#include "kforge/cli/line_reader.h"

#include <editline/readline.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <iostream>

namespace kforge::cli {
namespace {

class TerminalReader : public LineReader {
 public:
  explicit TerminalReader(std::filesystem::path history) : history_(std::move(history)) {
    using_history();
    read_history(history_.c_str());
  }
  ~TerminalReader() override { write_history(history_.c_str()); }

  std::optional<std::string> read(const std::string& prompt) override {
    char* line = readline(prompt.c_str());
    if (!line) return std::nullopt;
    std::string s(line);
    std::free(line);
    if (!s.empty()) add_history(s.c_str());
    return s;
  }

 private:
  std::filesystem::path history_;
};

class PipeReader : public LineReader {
 public:
  std::optional<std::string> read(const std::string& prompt) override {
    std::string line;
    if (!std::getline(std::cin, line)) return std::nullopt;
    fmt::print("{}{}\n", prompt, line);
    std::fflush(stdout);
    return line;
  }
};

}  // namespace

std::unique_ptr<LineReader> make_line_reader(const std::filesystem::path& history) {
  if (isatty(0)) return std::make_unique<TerminalReader>(history);
  return std::make_unique<PipeReader>();
}

}  // namespace kforge::cli
