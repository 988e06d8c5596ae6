// Python tracebacks, read line by line: "Traceback (most recent call last):", its frames
// ('  File "path", line N, in function' with the echoed source and caret lines indented below),
// then the exception line ("Type: message") and the message's continuation lines.
#include "kforge/toolchain/pallas_diagnostics.h"

#include <fmt/format.h>

#include <optional>
#include <regex>
#include <sstream>

#include "kforge/core/utf8.h"

namespace kforge::toolchain {
namespace {

constexpr std::size_t kMaxMessageBytes = 1500;  // a jaxpr in a message can run for pages

struct Frame {
  std::string file, function, echoed;
  int line = 0;
  int caret = -1;  // the column of the first '^' under the echoed line (SyntaxError), 0-based
};

struct Traceback {
  std::vector<Frame> frames;
  std::string type, message;
};

// JAX's chained "stack before transformation" carries the real exception inside its message.
constexpr std::string_view kBeforeTransformation =
    "jax._src.source_info_util.JaxStackTraceBeforeTransformation";

bool ends_a_message(const std::string& line) {
  return line.empty() || line == "--------------------" || line.rfind("Traceback (", 0) == 0 ||
         line.rfind("The above exception", 0) == 0 || line.rfind("During handling", 0) == 0 ||
         line.rfind("For simplicity, JAX has removed", 0) == 0;
}

void read_exception_line(const std::string& line, Traceback& tb) {
  static const std::regex exception(R"(^([A-Za-z_][\w.]*)(?:: (.*))?$)");
  std::smatch m;
  if (!std::regex_match(line, m, exception)) {
    tb.message = line;
    return;
  }
  tb.type = m[1];
  tb.message = m[2];
  std::smatch inner;
  if (tb.type == kBeforeTransformation && std::regex_match(tb.message, inner, exception)) {
    tb.type = inner[1];
    tb.message = inner[2];
  }
}

std::vector<Traceback> read_tracebacks(const std::string& output) {
  static const std::regex frame(R"re(^  File "(.+)", line (\d+)(?:, in (.+))?$)re");
  std::vector<Traceback> out;
  enum { outside, frames, message } state = outside;
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line == "Traceback (most recent call last):") {
      out.emplace_back();
      state = frames;
      continue;
    }
    if (state == frames) {
      std::smatch m;
      if (std::regex_match(line, m, frame)) {
        out.back().frames.push_back({m[1], m[3], "", std::stoi(m[2]), -1});
      } else if (line.rfind("    ", 0) == 0 && !out.back().frames.empty()) {
        Frame& f = out.back().frames.back();
        auto caret = line.find('^');
        if (line.find_first_not_of(" ^~") == std::string::npos && caret != std::string::npos) {
          if (f.caret < 0) f.caret = static_cast<int>(caret) - 4;
        } else if (f.echoed.empty()) {
          f.echoed = line.substr(4);
        }
      } else if (!line.empty() && line[0] != ' ') {
        read_exception_line(line, out.back());
        state = message;
      }
    } else if (state == message) {
      if (ends_a_message(line)) {
        state = outside;
      } else if (out.back().message.size() < kMaxMessageBytes) {
        out.back().message += "\n" + line;
      }
    }
  }
  return out;
}

// The name in `sources` that `path` is ("kernel.py" for "/tmp/x/kernel.py"); with no sources,
// the path itself when it is not Python's own; nullopt otherwise.
std::optional<std::string> kernel_file(const std::string& path,
                                       const std::map<std::string, std::string>& sources) {
  for (const auto& [name, text] : sources)
    if (path == name ||
        (path.size() > name.size() &&
         path.compare(path.size() - name.size() - 1, std::string::npos, "/" + name) == 0))
      return name;
  if (!sources.empty() || path.empty() || path[0] == '<') return std::nullopt;
  static const std::regex python_own(R"((/site-packages/|/dist-packages/|/lib/python\d))");
  if (std::regex_search(path, python_own)) return std::nullopt;
  return path;
}

std::string line_of(const std::map<std::string, std::string>& sources, const std::string& file,
                    int line) {
  auto it = sources.find(file);
  if (it == sources.end() || line <= 0) return {};
  std::istringstream in(it->second);
  std::string s;
  for (int i = 1; std::getline(in, s); ++i)
    if (i == line) return core::valid_utf8(s);  // the source may not be UTF-8
  return {};
}

// "(Blocked(block_size=4), Blocked(block_size=256))" → "(4, 256)"; Squeezed() → None.
std::string plain_block_shapes(std::string s) {
  static const std::regex blocked(R"((?:Blocked|Element|BoundedSlice)\(block_size=(\d+)\))");
  static const std::regex squeezed(R"(Squeezed\(\))");
  s = std::regex_replace(s, blocked, "$1");
  return std::regex_replace(s, squeezed, "None");
}

std::string first_match(const std::string& text, const std::regex& pattern) {
  std::smatch m;
  return std::regex_search(text, m, pattern) ? m[1].str() : "";
}

Diagnostic at(const std::string& file, int line, std::string severity, std::string message,
              const std::map<std::string, std::string>& sources) {
  return {file, line, 0, std::move(severity), std::move(message), line_of(sources, file, line)};
}

// The offending BlockSpec, as far as the message names it.
std::optional<std::string> block_spec_note(const std::string& message) {
  static const std::regex operand(R"(\bfor (args\[\d+\]|outputs\[\d+\]|outputs|out\[\d+\]))");
  static const std::regex block(R"(block[ _]shape(?: for \S+)?(?: \(= |=| )(\([^()]*\)))",
                                std::regex::icase);
  static const std::regex array(R"(array shape (\([^()]*\)))");
  static const std::regex grid(R"(\bgrid(?: \(= |=| )(\([^()]*\)))");
  std::string b = first_match(message, block), a = first_match(message, array);
  if (b.empty() && a.empty()) return std::nullopt;
  std::string note = "offending BlockSpec";
  if (auto o = first_match(message, operand); !o.empty()) note += " for " + o;
  if (!b.empty()) note += ": block shape " + b;
  if (!a.empty()) note += ", array shape " + a;
  if (auto g = first_match(message, grid); !g.empty()) note += ", grid " + g;
  return note;
}

// What a message usually means, for the errors a Pallas kernel meets most.
std::optional<std::string> hint(const std::string& type, const std::string& message) {
  static const std::regex lambda_arity(
      R"(<lambda>\(\) (takes \d+ positional arguments? but \d+ (were|was) given|missing \d+ required positional arguments?))");
  if (type == "TypeError" && std::regex_search(message, lambda_arity))
    return "a BlockSpec's index_map is called with one index per grid axis (then the "
           "scalar-prefetch refs, with PrefetchScalarGridSpec): its arity must match len(grid)";
  if (message.find("must return") != std::string::npos &&
      message.find("to match block_shape") != std::string::npos)
    return "an index_map returns one block index per array dimension (per block_shape entry)";
  if (message.find("must have the same number of dimensions") != std::string::npos)
    return "a block shape has one entry per array dimension (None or pl.squeezed to drop one)";
  if (message.find("divisible by 8 and 128") != std::string::npos)
    return "Mosaic TPU: the last two block dimensions must be multiples of (8, 128) for 32-bit "
           "types (sublanes, lanes) or equal the array's own dimensions";
  if (message.find("incompatible shapes for broadcasting") != std::string::npos)
    return "inside the kernel a ref holds one block (its BlockSpec's block shape), not the whole "
           "array: compare the block shapes of the operands combined here";
  if (message.find("Invalid dtype for `swap`") != std::string::npos)
    return "a value stored into a ref must have the ref's dtype: cast with .astype(ref.dtype)";
  if (message.find("Unimplemented primitive in Pallas TPU lowering") != std::string::npos)
    return "Mosaic TPU cannot lower this operation inside a kernel: express it with supported ops "
           "(elementwise math, reductions, jnp.dot, iota, where, pl.ds slices) or move it outside "
           "the pallas_call";
  if (message.find("Out of bound slice") != std::string::npos)
    return "a slice of a ref must stay inside the ref's block (the BlockSpec's block shape)";
  if (message.find("Only interpret mode is supported on CPU") != std::string::npos ||
      message.find("Cannot lower pallas_call on platform") != std::string::npos)
    return "this backend cannot compile Pallas kernels: on a CPU, pallas_call needs interpret=True";
  return std::nullopt;
}

// "pallas_call _rms at /x/kernel.py:9", "Index map function <lambda> at /x/kernel.py:24": the
// places a message points at, as notes.
std::vector<Diagnostic> pointed_at(const std::string& message,
                                   const std::map<std::string, std::string>& sources) {
  static const std::regex place(
      R"((pallas_call (\S+)|Index map function (\S+)(?: for \S+)?) at ([^\s:]+\.py):(\d+))");
  std::vector<Diagnostic> out;
  for (std::sregex_iterator it(message.begin(), message.end(), place), end; it != end; ++it) {
    const auto& m = *it;
    auto file = kernel_file(m[4], sources);
    if (!file) continue;
    std::string what = m[2].matched ? "the kernel function " + m[2].str() + " of this pallas_call"
                                    : "the index map " + m[3].str();
    out.push_back(at(*file, std::stoi(m[5]), "note", what, sources));
  }
  return out;
}

}  // namespace

std::vector<Diagnostic> parse_python_diagnostics(
    const std::string& output, const std::map<std::string, std::string>& sources) {
  auto tracebacks = read_tracebacks(output);
  while (!tracebacks.empty() && tracebacks.back().type.empty()) tracebacks.pop_back();
  if (tracebacks.empty()) return {};
  const Traceback& last = tracebacks.back();
  std::string message = plain_block_shapes(last.message);

  // The deepest kernel frame of the last traceback that has one.
  Diagnostic error{"", 0, 0, "error", last.type + (message.empty() ? "" : ": " + message), ""};
  bool located = false;
  for (auto tb = tracebacks.rbegin(); tb != tracebacks.rend() && !located; ++tb)
    for (auto f = tb->frames.rbegin(); f != tb->frames.rend(); ++f)
      if (auto file = kernel_file(f->file, sources)) {
        error.file = *file;
        error.line = f->line;
        error.source_line = line_of(sources, *file, f->line);
        if (error.source_line.empty()) error.source_line = f->echoed;
        if (f->caret >= 0 && last.type == "SyntaxError") {
          // The echoed line is stripped of its indentation; the caret is relative to it.
          auto indent = error.source_line.find_first_not_of(" \t");
          error.column = f->caret + 1 + static_cast<int>(indent == std::string::npos ? 0 : indent);
        }
        located = true;
        break;
      }
  auto notes = pointed_at(message, sources);
  if (!located && !notes.empty()) {  // only the message says where: its first place is the error
    error.file = notes.front().file;
    error.line = notes.front().line;
    error.source_line = notes.front().source_line;
  }

  std::vector<Diagnostic> out{error};
  if (auto b = block_spec_note(message))
    out.push_back({error.file, error.line, 0, "note", *b, error.source_line});
  for (auto& n : notes)
    if (n.file != error.file || n.line != error.line) out.push_back(std::move(n));
  if (auto h = hint(last.type, message)) out.push_back({error.file, error.line, 0, "note", *h, ""});
  return out;
}

}  // namespace kforge::toolchain
