// The search graph's nodes and their paired scores.
#include "kforge/modes/search_graph.h"

#include "kforge/modes/run_ledger.h"

namespace kforge::modes {

void SearchGraph::put(store::NodeRecord node) {
  if (node.depth == 0 && (node.strategy_id == "root" || node.strategy == "root")) root_ = node.id;
  const auto id = node.id;
  nodes_[id] = std::move(node);
}

std::vector<store::NodeRecord> SearchGraph::nodes() const {
  std::vector<store::NodeRecord> out;
  for (const auto& [id, n] : nodes_) out.push_back(n);
  return out;
}

bool SearchGraph::correct(std::int64_t id) const { return is_correct(node(id)); }

std::optional<double> SearchGraph::ratio_to_parent(std::int64_t id) const {
  return node(id).vs_parent_ratio;
}

double SearchGraph::score_of(std::int64_t id) const {
  const auto& n = node(id);
  if (id == root_) return n.speedup && *n.speedup > 0 ? *n.speedup : 1.0;
  auto ratio = ratio_to_parent(id);
  if (!correct(id) || !ratio || !n.parent_id || !contains(*n.parent_id)) return 0.0;
  return score_of(*n.parent_id) * *ratio;
}

std::set<std::string> SearchGraph::path_strategies(std::int64_t id) const {
  std::set<std::string> used;
  std::set<std::int64_t> seen;
  for (std::optional<std::int64_t> cur = id; cur && contains(*cur) && seen.insert(*cur).second;
       cur = node(*cur).parent_id)
    used.insert(node(*cur).strategy_id);
  return used;
}

}  // namespace kforge::modes
