#pragma once
// A search's graph in memory: its nodes by id, and how they rank. Every rank is made of paired
// measurements: a node's score is the product of the side-by-side ratios along its path from the
// root, times the root's own paired speedup over the baseline; no two absolute medians from
// different runs are ever compared. Invalid nodes score 0.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "kforge/store/runs.h"

namespace kforge::modes {

class SearchGraph {
 public:
  // Adds or replaces a node; the root is the node of depth 0 with strategy_id or strategy "root".
  void put(store::NodeRecord node);
  bool contains(std::int64_t id) const { return nodes_.count(id) > 0; }
  const store::NodeRecord& node(std::int64_t id) const { return nodes_.at(id); }
  std::optional<std::int64_t> root() const { return root_; }
  std::vector<store::NodeRecord> nodes() const;  // by id

  bool correct(std::int64_t id) const;
  // A node's speedup over its parent, measured side by side; absent for the root and for nodes
  // that failed or were never compared.
  std::optional<double> ratio_to_parent(std::int64_t id) const;
  double score_of(std::int64_t id) const;
  // The strategies used along the path from the root to `id` (a cycle in a damaged store ends the
  // walk).
  std::set<std::string> path_strategies(std::int64_t id) const;

 private:
  std::map<std::int64_t, store::NodeRecord> nodes_;
  std::optional<std::int64_t> root_;
};

}  // namespace kforge::modes
