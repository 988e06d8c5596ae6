// A line-level reading of task.toml's comments (toml++ drops them) and of generate.cpp's head.
#include "kforge/agents/task_notes.h"

#include <fmt/format.h>

#include <sstream>
#include <vector>

#include "kforge/core/fs.h"
#include "kforge/core/trim.h"

namespace kforge::agents {
namespace {

std::string trim(std::string_view s) { return std::string(core::trim(s)); }

// The comment in a line, outside quoted strings; "" when none.
std::string comment_of(const std::string& line, std::string& code) {
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '"' && (i == 0 || line[i - 1] != '\\')) quoted = !quoted;
    if (line[i] == '#' && !quoted) {
      code = trim(line.substr(0, i));
      return trim(line.substr(i + 1));
    }
  }
  code = trim(line);
  return "";
}

struct Block {
  std::string label;  // where it stands: "" (the file's head), "[check]", "input labels", "eps"
  std::string text;
};

// Reads the comments, attributing a comment block to the section or table of the line it comes
// before, and an end-of-line comment to that line's key.
class TomlComments {
 public:
  explicit TomlComments(std::string size) : size_(std::move(size)) {}

  void read(const std::string& toml) {
    std::istringstream in(toml);
    for (std::string line; std::getline(in, line);) {
      std::string code, comment = comment_of(line, code);
      if (code.empty() && !comment.empty())
        pending_ += (pending_.empty() ? "" : "\n") + comment;
      else if (!code.empty() && code.front() == '[')
        header(code, comment);
      else if (!code.empty())
        key(code, comment);
    }
    flush();
  }
  const std::vector<Block>& blocks() const { return blocks_; }

 private:
  // Comments just above a section describe it, as does the one on its header line (continued on
  // the comment lines below it); a table of inputs or outputs waits for its name.
  void header(const std::string& code, const std::string& comment) {
    section_ = label_ = code;
    if (code != "[[inputs]]" && code != "[[outputs]]") flush();
    if (!comment.empty()) pending_ += (pending_.empty() ? "" : "\n") + comment;
  }
  void key(const std::string& code, const std::string& comment) {
    std::string name = trim(code.substr(0, code.find('=')));
    // A table of inputs or outputs is known by its name: its comments wait for it.
    if (name == "name" && (section_ == "[[inputs]]" || section_ == "[[outputs]]")) {
      auto q = code.find('"');
      std::string tensor =
          q == std::string::npos ? "" : code.substr(q + 1, code.find('"', q + 1) - q - 1);
      label_ = (section_ == "[[inputs]]" ? "input " : "output ") + tensor;
      if (!comment.empty()) pending_ += (pending_.empty() ? "" : "\n") + comment;
      flush();
      return;
    }
    flush();
    if (!comment.empty()) add(label_.empty() ? name : label_ + " " + name, comment);
  }
  void flush() {
    if (!pending_.empty()) add(label_, pending_);
    pending_.clear();
  }
  void add(const std::string& label, const std::string& text) {
    // Another size's comments describe shapes this request does not have.
    if (label.rfind("[sizes.", 0) == 0 && label.rfind("[sizes." + size_ + "]", 0) != 0) return;
    blocks_.push_back({label, text});
  }

  std::string size_, section_, label_, pending_;
  std::vector<Block> blocks_;
};

// "[check]" → "check", "[sizes.cpu]" → "sizes.cpu"
std::string plain(std::string label) {
  std::erase(label, '[');
  std::erase(label, ']');
  return label;
}

// The // lines at the top of generate.cpp: what it draws and why.
std::string generator_comment(const core::TaskSpec& spec) {
  auto text = core::read_text(spec.generate_path());
  if (!text) return "";
  std::istringstream in(*text);
  std::string out;
  for (std::string line; std::getline(in, line) && line.rfind("//", 0) == 0;)
    out += (out.empty() ? "" : "\n") + trim(line.substr(2));
  return out;
}

}  // namespace

std::string task_notes(const core::TaskSpec& spec, const std::string& size) {
  std::string out = spec.notes.empty() ? "" : spec.notes + "\n";
  if (auto toml = core::read_text(spec.dir / "task.toml")) {
    TomlComments comments(size);
    comments.read(*toml);
    for (const auto& b : comments.blocks())
      out += b.label.empty() ? b.text + "\n" : fmt::format("{}: {}\n", plain(b.label), b.text);
  }
  if (spec.has_generator())
    if (auto g = generator_comment(spec); !g.empty())
      out += "generate.cpp (draws the structured inputs): " + g + "\n";
  return out;
}

}  // namespace kforge::agents
