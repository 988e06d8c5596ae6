// The guard lint: split the source into code and comments, flag the lines that may hold a guard,
// and keep those that neither count it nor say why it is none.
#include "guard_lint.h"

#include <algorithm>
#include <cctype>
#include <regex>
#include <set>

namespace kforge::suite {
namespace {

struct Line {
  std::string raw, code, comment;
};

// Splits into lines, each with its code (string and character literals emptied) and its comment
// text; block comments may span lines.
std::vector<Line> split(std::string_view src) {
  std::vector<Line> lines(1);
  bool block = false;
  for (std::size_t i = 0; i < src.size(); ++i) {
    char c = src[i];
    Line& l = lines.back();
    if (c == '\n') {
      lines.emplace_back();
      continue;
    }
    if (block) {
      if (c == '*' && i + 1 < src.size() && src[i + 1] == '/') {
        block = false;
        ++i;
      } else {
        l.comment += c;
      }
      continue;
    }
    if (c == '/' && i + 1 < src.size() && src[i + 1] == '/') {
      std::size_t end = src.find('\n', i);
      if (end == std::string_view::npos) end = src.size();
      l.comment += std::string(src.substr(i + 2, end - i - 2));
      i = end - 1;
      continue;
    }
    if (c == '/' && i + 1 < src.size() && src[i + 1] == '*') {
      block = true;
      ++i;
      continue;
    }
    bool quote =
        c == '"' ||
        (c == '\'' && (l.code.empty() || !std::isalnum(static_cast<unsigned char>(l.code.back()))));
    if (quote) {
      l.code += c;
      std::size_t j = i + 1;
      while (j < src.size() && src[j] != c && src[j] != '\n') {
        if (src[j] == '\\') ++j;
        ++j;
      }
      if (j < src.size() && src[j] == c) {
        l.code += c;
        i = j;
      }
      continue;
    }
    l.code += c;
  }
  std::size_t start = 0;
  for (auto& l : lines) {
    std::size_t end = std::min(src.find('\n', start), src.size());
    l.raw = std::string(src.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

bool blank(const std::string& s) { return s.find_first_not_of(" \t\r") == std::string::npos; }

bool justified(const std::string& comment) {
  return comment.find("not a guard:") != std::string::npos ||
         comment.find("never fires:") != std::string::npos;
}

bool probed(const std::string& code) {
  return code.find("KFORGE_GUARD") != std::string::npos ||
         code.find("KFORGE_CLAMP") != std::string::npos;
}

// The comment on line i, or else the comment-only lines right above it.
bool explained(const std::vector<Line>& lines, std::size_t i) {
  if (justified(lines[i].comment)) return true;
  for (std::size_t j = i; j-- > 0 && blank(lines[j].code) && !lines[j].comment.empty();)
    if (justified(lines[j].comment)) return true;
  return false;
}

// Names given a value on this line: `T a = …, b = …` or `a = …` (not ==, <=, >=, !=).
std::vector<std::string> assigned_names(const std::string& code) {
  static const std::regex assign(R"(\b([A-Za-z_]\w*)\s*=(?!=))");
  std::vector<std::string> names;
  for (std::sregex_iterator it(code.begin(), code.end(), assign), end; it != end; ++it) {
    std::size_t at = static_cast<std::size_t>(it->position(0)) + it->length(0) - 1;  // the '='
    char before = at > 0 ? code[at - 1] : ' ';
    if (before == '<' || before == '>' || before == '!') continue;
    names.push_back((*it)[1]);
  }
  return names;
}

std::string possible_guard(const std::string& code, const std::set<std::string>& not_variables) {
  static const std::regex select_call(
      R"(\b(clamp|min|max|fmin|fmax|fminf|fmaxf|min_element|max_element|minmax|minmax_element)\s*(<[^<>()]*>)?\s*\()");
  static const std::regex branch(R"(\b(if|while)(\s+constexpr)?\s*\()");
  static const std::regex mask(R"(\w*mask\w*)", std::regex::icase);
  static const std::regex loop(R"(\bfor\s*\([^;]*;\s*\w+\s*(<=|<|>=|>|!=)\s*([^;]*?)\s*;)");
  static const std::regex variable(R"(([a-z_]\w*)(\[[^\]]*\])?)");
  std::smatch m;
  if (std::regex_search(code, m, select_call)) return "calls " + m[1].str();
  if (code.find('?') != std::string::npos) return "selects with ?:";
  if (std::regex_search(code, m, branch)) return "branches (" + m[1].str() + ")";
  if (std::regex_search(code, m, mask)) return "names a mask (" + m[0].str() + ")";
  if (std::regex_search(code, m, loop)) {
    std::smatch v;
    std::string bound = m[2];
    if (std::regex_match(bound, v, variable) && !not_variables.count(v[1]))
      return "loops up to a variable (" + bound + "): a causal or length mask?";
  }
  return {};
}

}  // namespace

std::vector<LintFinding> lint_guards(std::string_view source) {
  auto lines = split(source);
  std::set<std::string>
      not_variables;  // constexpr names, and names set on a probed or explained line
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string& code = lines[i].code;
    if (code.find("constexpr") != std::string::npos || probed(code) || explained(lines, i))
      for (auto& n : assigned_names(code)) not_variables.insert(n);
  }
  std::vector<LintFinding> findings;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string& code = lines[i].code;
    auto first = code.find_first_not_of(" \t");
    if (first == std::string::npos || code[first] == '#')
      continue;  // blank, comment or preprocessor
    std::string why = possible_guard(code, not_variables);
    if (why.empty() || probed(code) || explained(lines, i)) continue;
    findings.push_back({static_cast<int>(i + 1), lines[i].raw, why});
  }
  return findings;
}

}  // namespace kforge::suite
