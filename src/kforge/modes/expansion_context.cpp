// The search's standing for an expansion's agents: the graph's nodes turned into what the planner
// and the profiler read, with the evaluations the search kept.
#include "kforge/modes/expansion_context.h"

#include <fmt/format.h>

#include <set>

#include "kforge/core/fs.h"
#include "kforge/core/shorten.h"
#include "kforge/eval/evaluation_json.h"
#include "kforge/eval/paired_decision.h"
#include "kforge/modes/run_ledger.h"

namespace kforge::modes {
namespace {

constexpr std::size_t kPlanLineBytes = 200;

std::string first_line(const std::string& text) {
  auto start = text.find_first_not_of(" \n\t");
  if (start == std::string::npos) return "";
  auto end = text.find('\n', start);
  return core::shorten(text.substr(start, end == std::string::npos ? end : end - start),
                       kPlanLineBytes, "…");
}

std::optional<eval::SpeedupStats> stats(const nlohmann::json& j) {
  if (!j.is_object()) return std::nullopt;
  eval::SpeedupStats s;
  s.median = j.value("median", 0.0);
  if (auto ci = j.value("ci95", nlohmann::json()); ci.is_array() && ci.size() == 2) {
    s.ci_low = ci[0].get<double>();
    s.ci_high = ci[1].get<double>();
  }
  return s;
}

// A stored side-by-side decision (PairedDecision::to_json) as the model reads one.
std::string paired_text(const std::string& json) {
  auto j = nlohmann::json::parse(json, nullptr, false);
  if (!j.is_object() || !j.contains("winner")) return "";
  eval::PairedDecision d;
  d.against = j.value("against", "");
  for (auto w : {eval::Winner::challenger, eval::Winner::incumbent, eval::Winner::tie,
                 eval::Winner::undecided})
    if (j.value("winner", "") == eval::winner_name(w)) d.winner = w;
  d.busy = j.value("busy", false);
  d.decided_busy = j.value("decided_busy", false);
  d.reason = j.value("reason", "");
  d.ratio = stats(j.value("ratio", nlohmann::json()));
  d.first_ratio = stats(j.value("first_ratio", nlohmann::json()));
  return d.describe();
}

// What the store says of a node, when no evaluation file was kept.
std::string stored_result(const store::NodeRecord& n) {
  if (!n.verdict) return fmt::format("no kernel judged ({})", store::node_state_name(n.state));
  if (!is_correct(n)) return fmt::format("{}: {}", *n.verdict, core::shorten(n.reason, 300));
  std::string out = fmt::format("correct, {:.4g} ms", *n.median_ms);
  if (n.speedup) out += fmt::format(", {:.2f}x (no interval kept)", *n.speedup);
  if (n.roofline) out += fmt::format(", {:.0f}% of the roofline", 100 * *n.roofline);
  return out;
}

agents::SearchNode search_node(const store::NodeRecord& n, const std::filesystem::path& dir) {
  agents::SearchNode out;
  out.label = node_label(n.number);
  out.strategy = n.strategy_id.empty() ? n.strategy : n.strategy_id;
  if (n.strategy != out.strategy) out.plan_line = first_line(n.strategy);
  out.correct = is_correct(n);
  out.result = stored_result(n);
  out.hot_spots = n.profile;
  if (!n.vs_parent.empty()) out.vs_parent = paired_text(n.vs_parent);
  if (!dir.empty() && n.verdict) {
    auto text = core::read_text(dir / fmt::format("node-{}", n.number) / "evaluation.json");
    auto j = text ? nlohmann::json::parse(*text, nullptr, false) : nlohmann::json();
    if (j.is_object()) out.evaluation = eval::evaluation_from_json(j);
  }
  return out;
}

}  // namespace

std::string node_label(int number) { return fmt::format("node {}", number); }

ExpansionContext expansion_context(const SearchGraph& graph, std::int64_t parent,
                                   std::optional<std::int64_t> best) {
  ExpansionContext c;
  std::set<std::int64_t> seen = {parent};
  for (auto up = graph.node(parent).parent_id; up && graph.contains(*up) && seen.insert(*up).second;
       up = graph.node(*up).parent_id)
    c.path.insert(c.path.begin(), graph.node(*up));
  for (const auto& n : graph.nodes())
    if (n.parent_id == parent && n.expansion_result) c.siblings.push_back(n);
  if (best && graph.contains(*best)) c.best = graph.node(*best);
  return c;
}

agents::SearchStanding search_standing(const Expansion& x, const store::NodeRecord& parent,
                                       const std::filesystem::path& session_dir) {
  agents::SearchStanding s;
  s.expansion = x.key;
  s.parent = search_node(parent, session_dir);
  s.parent_source = parent.source;
  for (const auto& n : x.context.path) s.path.push_back(search_node(n, session_dir));
  for (const auto& n : x.context.siblings) s.siblings.push_back(search_node(n, session_dir));
  if (x.context.best) {
    s.best_is_parent = x.context.best->id == parent.id;
    s.best = search_node(*x.context.best, session_dir);
  }
  s.depth = parent.depth + 1;
  s.max_depth = x.context.max_depth;
  s.expansions_left = x.context.expansions_left;
  return s;
}

}  // namespace kforge::modes
