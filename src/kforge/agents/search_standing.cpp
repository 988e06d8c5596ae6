// A search's standing as text: a node in one line, the search's budget, the path and the siblings.
#include "kforge/agents/search_standing.h"

#include <fmt/format.h>

#include <algorithm>

namespace kforge::agents {
namespace {

std::string evaluation_line(const eval::Evaluation& e, const std::string& partner) {
  if (!e.correct() || !e.candidate)
    return fmt::format("{}: {}", eval::verdict_name(e.verdict), e.reason.substr(0, 300));
  std::string out = fmt::format("correct, {:.4g} ms", e.candidate->median_ms);
  if (e.speedup && e.timing_is_performance())
    out += fmt::format(", {:.2f}x against {}; 95% interval {:.2f}–{:.2f}x{}", e.speedup->median,
                       partner, e.speedup->ci_low, e.speedup->ci_high,
                       e.machine_busy ? " (timed busy)" : "");
  out += fmt::format(", {:.0f}% of the roofline", 100 * e.roofline);
  return out;
}

// "node 7 (packing: Pack B into K-major panels)".
std::string named(const SearchNode& n) {
  std::string what = n.strategy;
  if (!n.plan_line.empty()) what += (what.empty() ? "" : ": ") + n.plan_line;
  return what.empty() ? n.label : fmt::format("{} ({})", n.label, what);
}

}  // namespace

std::string search_node_line(const SearchNode& n, const std::string& partner) {
  return n.evaluation ? evaluation_line(*n.evaluation, partner) : n.result;
}

std::string describe_search_budget(const SearchStanding& s) {
  std::string out = fmt::format("Search: this expansion ({}) grows {} into a node at depth {}",
                                s.expansion, s.parent.label, s.depth);
  out += s.max_depth > 0 ? fmt::format(" of at most {}", s.max_depth) : "";
  out += s.expansions_left >= 0
             ? fmt::format("; at most {} more expansion(s) in the search after this one.\n",
                           s.expansions_left)
             : ".\n";
  return out;
}

std::string describe_search_history(const SearchStanding& s, const std::string& partner) {
  std::string out;
  if (!s.path.empty()) {
    out += "The path from the search's root to " + s.parent.label + ":";
    for (const auto& n : s.path) out += " " + named(n) + " →";
    out += " " + named(s.parent) + ".\n";
  }
  if (s.siblings.empty()) {
    out += fmt::format("No other expansion of {} has finished yet.\n", s.parent.label);
    return out;
  }
  out += fmt::format(
      "Other expansions of {} (this one's siblings; do not repeat what they tried unless you say "
      "what is different):\n",
      s.parent.label);
  for (const auto& n : s.siblings) {
    out += fmt::format("- {}: {}.\n", named(n), search_node_line(n, partner));
    if (!n.vs_parent.empty())
      out += fmt::format("  Side by side with {}: {}\n", s.parent.label, n.vs_parent);
  }
  return out;
}

}  // namespace kforge::agents
