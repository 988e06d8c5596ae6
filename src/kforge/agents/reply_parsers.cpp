// Tolerant of surrounding prose and markdown decoration, strict about the content that matters.
#include "kforge/agents/reply_parsers.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <regex>
#include <sstream>

#include "kforge/core/trim.h"

namespace kforge::agents {
namespace {

// Whitespace and markdown emphasis: models write "**Strategy**" as often as "Strategy".
std::string trim(std::string_view s) { return std::string(core::trim(s, " \t\r\n*")); }

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

struct Block {
  std::string lang, body;
};

std::vector<Block> fenced_blocks(const std::string& text) {
  std::vector<Block> blocks;
  std::size_t pos = 0;
  while ((pos = text.find("```", pos)) != std::string::npos) {
    std::size_t eol = text.find('\n', pos);
    if (eol == std::string::npos) break;
    std::string lang = trim(text.substr(pos + 3, eol - pos - 3));
    std::size_t end = text.find("\n```", eol);
    if (end == std::string::npos) {
      blocks.push_back({lang, text.substr(eol + 1)});  // unterminated: take the rest, checked below
      blocks.back().lang = "unterminated";
      break;
    }
    blocks.push_back({lower(lang), text.substr(eol + 1, end - eol)});
    pos = end + 4;
  }
  return blocks;
}

// Number of parameters of the `kernel` definition, or -1 if it is not defined.
int kernel_parameter_count(const std::string& code) {
  static const std::regex def(R"(\bvoid\s+kernel\s*\(([^)]*)\)\s*\{)");
  std::smatch m;
  if (!std::regex_search(code, m, def)) return -1;
  std::string params = trim(m[1].str());
  if (params.empty() || params == "void") return 0;
  return static_cast<int>(std::count(params.begin(), params.end(), ',')) + 1;
}

}  // namespace

const std::vector<std::string>& required_plan_sections() {
  static const std::vector<std::string> sections = {"Analysis", "Bottleneck",    "Strategy",
                                                    "Blocking", "Vectorization", "Threading",
                                                    "Tunables", "Expected gain"};
  return sections;
}

Result<Plan> parse_plan(const std::string& reply) {
  std::map<std::string, std::string> found;
  std::string current;
  std::istringstream in(reply);
  for (std::string line; std::getline(in, line);) {
    std::string t = trim(line);
    if (t.rfind('#', 0) == 0) {
      std::string heading = trim(t.substr(t.find_first_not_of('#')));
      current.clear();
      for (const auto& s : required_plan_sections())
        if (lower(heading).rfind(lower(s), 0) == 0) current = s;
      continue;
    }
    if (!current.empty()) found[current] += line + "\n";
  }
  std::vector<std::string> missing;
  for (const auto& s : required_plan_sections())
    if (trim(found[s]).empty()) missing.push_back(s);
  if (!missing.empty()) {
    std::string list;
    for (const auto& m : missing) list += (list.empty() ? "## " : ", ## ") + m;
    return Error{
        fmt::format("the plan is missing these sections (or they are empty): {}. Reply with the "
                    "whole plan, every section "
                    "headed exactly as asked.",
                    list)};
  }
  return Plan{reply, trim(found["Strategy"])};
}

namespace {

// A Python kernel file (the pallas target): one ```python block that defines `def kernel(`. Its
// parameters are the task's inputs, often taken as *inputs, so they are not counted here: the
// worker calls it with the task's inputs and a wrong arity is a verdict there.
Result<std::string> parse_python_kernel(const std::vector<Block>& blocks,
                                        const std::string& fence) {
  std::vector<Block> code;
  for (const auto& b : blocks) {
    if (b.lang == "unterminated")
      return Error{
          "the code block is not closed with ```: the reply was cut off or malformed. Reply with "
          "the complete file."};
    if (b.lang == "python" || b.lang == "py" || b.lang.empty()) code.push_back(b);
  }
  auto defines_kernel = [](const Block& b) {
    return b.body.find("def kernel(") != std::string::npos;
  };
  if (code.empty())
    return Error{fmt::format(
        "the reply has no ```{0} code block. Reply with the complete kernel in one ```{0} block.",
        fence)};
  if (code.size() > 1) {
    std::vector<Block> defining;
    for (auto& b : code)
      if (defines_kernel(b)) defining.push_back(b);
    if (defining.size() != 1)
      return Error{fmt::format(
          "the reply has {} code blocks; send exactly one ```{} block with the complete file.",
          code.size(), fence)};
    code = defining;
  }
  if (!defines_kernel(code.front()))
    return Error{
        "the code block does not define `def kernel(...)`: the file must define the kernel "
        "function the task's inputs are passed to."};
  return code.front().body;
}

}  // namespace

Result<std::string> parse_kernel(const std::string& reply, int parameters,
                                 const std::string& fence) {
  auto blocks = fenced_blocks(reply);
  if (fence == "python") return parse_python_kernel(blocks, fence);
  std::vector<Block> code;
  for (auto& b : blocks) {
    if (b.lang == "unterminated")
      return Error{
          "the code block is not closed with ```: the reply was cut off or malformed. Reply with "
          "the complete file."};
    if (b.lang == "cpp" || b.lang == "c++" || b.lang == "cxx" || b.lang == "c" ||
        b.lang == "cuda" || b.lang == "cu" || b.lang.empty())
      code.push_back(b);
  }
  if (code.empty())
    return Error{fmt::format(
        "the reply has no ```{0} code block. Reply with the complete kernel in one ```{0} block.",
        fence)};
  if (code.size() > 1) {
    // Several blocks: take the one that defines the kernel, if exactly one does.
    std::vector<Block> defining;
    for (auto& b : code)
      if (kernel_parameter_count(b.body) >= 0) defining.push_back(b);
    if (defining.size() != 1)
      return Error{fmt::format(
          "the reply has {} code blocks; send exactly one ```{} block with the complete file.",
          code.size(), fence)};
    code = defining;
  }
  const std::string& src = code.front().body;
  if (src.find("kforge_task.h") == std::string::npos)
    return Error{
        "the kernel does not #include \"kforge_task.h\", which defines the sizes and declares the "
        "signature."};
  int n = kernel_parameter_count(src);
  if (n < 0)
    return Error{"the code block does not define `extern \"C\" void kernel(...)` with a body."};
  if (n != parameters)
    return Error{
        fmt::format("`kernel` takes {} parameters, but this task's signature has {} (the inputs, "
                    "then the outputs).",
                    n, parameters)};
  return src;
}

Result<std::pair<std::string, FixSummary>> parse_fix(const std::string& reply, int parameters,
                                                     const std::string& fence) {
  auto src = parse_kernel(reply, parameters, fence);
  if (!src) return src.error();
  auto at = reply.find("FIX_SUMMARY");
  if (at == std::string::npos)
    return Error{
        "the reply has no FIX_SUMMARY section after the code (error:, cause:, fix: lines)."};
  FixSummary f;
  std::istringstream in(reply.substr(at));
  for (std::string line; std::getline(in, line);) {
    std::string t = trim(line);
    auto take = [&](const char* key, std::string& out) {
      if (lower(t).rfind(key, 0) == 0) out = trim(t.substr(std::string(key).size()));
    };
    take("error:", f.error);
    take("cause:", f.cause);
    take("fix:", f.fix);
  }
  if (f.cause.empty() || f.fix.empty())
    return Error{"FIX_SUMMARY must have non-empty `cause:` and `fix:` lines."};
  return std::make_pair(*src, f);
}

Result<Diagnosis> parse_diagnosis(const std::string& reply) {
  Diagnosis d;
  bool have_decision = false;
  std::istringstream in(reply);
  for (std::string line; std::getline(in, line);) {
    std::string t = trim(line);
    std::string l = lower(t);
    auto value = [&](const char* key) { return trim(t.substr(std::string(key).size())); };
    if (l.rfind("bottleneck:", 0) == 0)
      d.bottleneck = value("bottleneck:");
    else if (l.rfind("diagnosis:", 0) == 0)
      d.diagnosis = value("diagnosis:");
    else if (l.rfind("suggestion:", 0) == 0)
      d.suggestion = value("suggestion:");
    else if (l.rfind("needs_improvement:", 0) == 0) {
      std::string v = lower(value("needs_improvement:"));
      if (v.rfind("yes", 0) == 0 || v.rfind("true", 0) == 0)
        d.needs_improvement = have_decision = true;
      else if (v.rfind("no", 0) == 0 || v.rfind("false", 0) == 0) {
        d.needs_improvement = false;
        have_decision = true;
      }
    }
  }
  if (!have_decision)
    return Error{"the reply has no `NEEDS_IMPROVEMENT: yes` or `NEEDS_IMPROVEMENT: no` line."};
  if (d.diagnosis.empty()) return Error{"the reply has no `DIAGNOSIS:` line."};
  return d;
}

}  // namespace kforge::agents
