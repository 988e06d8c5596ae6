#pragma once
// Where the REPL reads its lines: a terminal (editline: line editing and a history file), or a
// pipe (one command per line, echoed so a transcript of a scripted session reads like a real one).

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

namespace kforge::cli {

class LineReader {
 public:
  virtual ~LineReader() = default;
  virtual std::optional<std::string> read(
      const std::string& prompt) = 0;  // nullopt at end of input
};

// A terminal reader when stdin is a terminal, else a pipe reader. `history` is the history file.
std::unique_ptr<LineReader> make_line_reader(const std::filesystem::path& history);

}  // namespace kforge::cli
