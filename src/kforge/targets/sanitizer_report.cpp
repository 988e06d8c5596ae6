// Reading compute-sanitizer's text: its own lines (prefixed "========= "), the summaries, and the
// findings each tool lists above them.
#include "kforge/targets/sanitizer_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <regex>

#include "kforge/core/utf8.h"

namespace kforge::eval {
namespace {

constexpr std::string_view kPrefix = "=========";
constexpr std::size_t kMaxFindings = 5, kMaxFindingChars = 400;

// The tool's lines, prefix removed (indentation kept: it marks a finding's details). Lines without
// the prefix are the kernel's process's own and are skipped.
std::vector<std::string> tool_lines(std::string_view output) {
  std::vector<std::string> lines;
  std::size_t at = 0;
  while (at < output.size()) {
    std::size_t end = output.find('\n', at);
    if (end == std::string_view::npos) end = output.size();
    std::string_view line = output.substr(at, end - at);
    at = end + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.substr(0, kPrefix.size()) != kPrefix) continue;
    line.remove_prefix(kPrefix.size());
    if (!line.empty() && line.front() == ' ') line.remove_prefix(1);
    lines.emplace_back(line);
  }
  return lines;
}

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// Lines at the left margin that head no finding: the banner, the summaries, the tool's notes.
bool is_frame_line(std::string_view s) {
  return s.empty() || starts_with(s, "COMPUTE-SANITIZER") || s.find("SUMMARY") != s.npos ||
         starts_with(s, "Target application returned") || starts_with(s, "Printing limit");
}

// A finding's head at the left margin, with the details that place it: where it happened ("at
// ..."), the other side of a race ("and ... access at ..."), what the address was.
std::vector<std::string> findings_of(const std::vector<std::string>& lines) {
  std::vector<std::string> found;
  std::string* current = nullptr;
  bool placed = false;
  for (const auto& raw : lines) {
    const bool indented = !raw.empty() && (raw.front() == ' ' || raw.front() == '\t');
    std::string_view line = trimmed(raw);
    if (!indented) {
      current = nullptr;
      if (is_frame_line(line)) continue;
      // racecheck marks severity; a warning is a possible race, counted but not named here.
      if (starts_with(line, "Warning:") || starts_with(line, "WARNING:")) continue;
      if (starts_with(line, "Error: ") || starts_with(line, "ERROR: ")) line.remove_prefix(7);
      if (found.size() == kMaxFindings) break;
      found.emplace_back(line);
      current = &found.back();
      placed = false;
      continue;
    }
    if (!current || current->size() > kMaxFindingChars) continue;
    if (starts_with(line, "and ") && line.find(" access at ") != line.npos) {
      *current += " " + std::string(line);
    } else if (starts_with(line, "at ") && !placed) {
      *current += " " + std::string(line);
      placed = true;
    } else if (starts_with(line, "Address ")) {
      *current += " (" + std::string(line) + ")";
    }
  }
  for (auto& f : found)
    if (f.size() > kMaxFindingChars) f = core::valid_utf8(f.substr(0, kMaxFindingChars)) + "…";
  return found;
}

std::string excerpt(const std::string& text, std::size_t n) {
  return text.size() <= n ? text : core::valid_utf8(text.substr(0, n)) + "…";
}

}  // namespace

SanitizerReport read_sanitizer_report(std::string_view output) {
  // memcheck, synccheck, initcheck: "ERROR SUMMARY: 3 errors" (the total; with a print limit a
  // second line says how many "were not printed"). racecheck: hazards displayed, by severity.
  static const std::regex errors(R"(^ERROR SUMMARY: (\d+) errors?(\s*\(.*\))?\s*$)");
  static const std::regex races(
      R"(^RACECHECK SUMMARY: (\d+) hazards? displayed \((\d+) errors?, (\d+) warnings?\)\s*$)");
  const auto lines = tool_lines(output);
  std::optional<int> error_summary;
  std::optional<std::pair<int, int>> race_summary;
  // The last summary counts: the tool prints its own once the process it watched has ended, so a
  // line the kernel printed to look like one comes before it.
  for (const auto& line : lines) {
    std::smatch m;
    if (std::regex_match(line, m, errors))
      error_summary = std::stoi(m[1]);
    else if (std::regex_match(line, m, races))
      race_summary = std::make_pair(std::stoi(m[2]), std::stoi(m[3]));
  }
  SanitizerReport r;
  if (!error_summary && !race_summary) return r;
  // racecheck may close with both lines; they count the same races then.
  r.errors = std::max(error_summary.value_or(0), race_summary ? race_summary->first : 0);
  r.warnings = race_summary ? race_summary->second : 0;
  r.outcome = r.errors > 0 ? SanitizerReport::Outcome::found : SanitizerReport::Outcome::clean;
  if (r.errors > 0) r.findings = findings_of(lines);
  return r;
}

std::string describe_sanitizer_findings(const SanitizerReport& r) {
  std::string s = fmt::format("{} error{}", r.errors, r.errors == 1 ? "" : "s");
  for (std::size_t i = 0; i < r.findings.size(); ++i) s += (i == 0 ? ": " : "; ") + r.findings[i];
  return s;
}

SanitizerPass judge_sanitizer_pass(const std::string& tool, const std::string& output,
                                   const std::optional<Judgement>& check) {
  const auto report = read_sanitizer_report(output);
  SanitizerPass pass;
  switch (report.outcome) {
    case SanitizerReport::Outcome::found:
      pass.verdict =
          Judgement{Verdict::runtime_error,
                    fmt::format("compute-sanitizer {} found {}\n{}", tool,
                                describe_sanitizer_findings(report), excerpt(output, 3000))};
      return pass;
    case SanitizerReport::Outcome::unreadable:
      pass.note = fmt::format(
          "compute-sanitizer {}: its output has no summary kforge can read, so the kernel is "
          "unchecked by it{}; it printed: {}",
          tool, check ? " (the check under it: " + excerpt(check->reason, 300) + ")" : "",
          excerpt(output, 600));
      return pass;
    case SanitizerReport::Outcome::clean:
      break;
  }
  if (report.warnings > 0)
    pass.note = fmt::format("compute-sanitizer {}: {} possible race{} (warnings, not errors)", tool,
                            report.warnings, report.warnings == 1 ? "" : "s");
  if (!check) return pass;
  if (check->verdict == Verdict::incorrect || check->verdict == Verdict::input_modified) {
    pass.verdict =
        Judgement{check->verdict, "under compute-sanitizer " + tool + ": " + check->reason};
    return pass;
  }
  pass.note += fmt::format(
      "{}compute-sanitizer {}: its summary is clean, but the check under it failed (the tool's "
      "cost, not a verdict): {}",
      pass.note.empty() ? "" : "; ", tool, excerpt(check->reason, 300));
  return pass;
}

}  // namespace kforge::eval
