// Ranking a search's nodes by paired results only: a node's score interval is the product of the
// side-by-side intervals along its path, and two nodes whose intervals overlap are tied, whatever
// their medians say (each median came from a run of its own).
#include <algorithm>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "kforge/modes/search_algorithms.h"

namespace kforge::modes {
namespace {

struct Interval {
  double median = 0, low = 0, high = 0;
};

// The node's side-by-side interval against its parent; a point at its median when none was kept.
Interval vs_parent(const store::NodeRecord& n, double median) {
  auto j = nlohmann::json::parse(n.vs_parent.empty() ? "null" : n.vs_parent, nullptr, false);
  if (j.is_object())
    if (auto ratio = j.value("ratio", nlohmann::json()); ratio.is_object())
      if (auto ci = ratio.value("ci95", nlohmann::json()); ci.is_array() && ci.size() == 2)
        return {median, ci[0].get<double>(), ci[1].get<double>()};
  return {median, median, median};
}

Interval score_interval(const SearchDriver& d, std::int64_t id) {
  Interval out{1, 1, 1};
  std::set<std::int64_t> seen;
  for (std::optional<std::int64_t> cur = id;
       cur && d.graph().contains(*cur) && seen.insert(*cur).second; cur = d.node(*cur).parent_id) {
    if (*cur == d.root()) {
      const double s = d.score_of(*cur);
      return {out.median * s, out.low * s, out.high * s};
    }
    auto ratio = d.ratio_to_parent(*cur);
    if (!ratio) return {};
    auto step = vs_parent(d.node(*cur), *ratio);
    out = {out.median * step.median, out.low * step.low, out.high * step.high};
  }
  return {};
}

}  // namespace

std::vector<std::int64_t> rank_nodes(const SearchDriver& d, std::vector<std::int64_t> ids) {
  std::map<std::int64_t, Interval> score;
  for (auto id : ids) score[id] = d.correct(id) ? score_interval(d, id) : Interval{};
  std::stable_sort(ids.begin(), ids.end(), [&](auto a, auto b) {
    return score[a].median != score[b].median ? score[a].median > score[b].median : a < b;
  });
  // Tiers: a node joins the tier of the best-scoring node above it while their intervals overlap.
  std::map<std::int64_t, int> tier;
  int t = -1;
  double leader_low = 0;
  for (auto id : ids) {
    if (t < 0 || score[id].high < leader_low) {
      ++t;
      leader_low = score[id].low;
    }
    tier[id] = t;
  }
  std::stable_sort(ids.begin(), ids.end(), [&](auto a, auto b) {
    if (tier[a] != tier[b]) return tier[a] < tier[b];
    const int da = d.node(a).depth, db = d.node(b).depth;
    return da != db ? da < db : a < b;
  });
  return ids;
}

bool clearly_above(const SearchDriver& d, std::int64_t a, std::int64_t b) {
  if (!d.correct(a)) return false;
  if (b != d.root() && !d.correct(b)) return true;
  return score_interval(d, a).low > score_interval(d, b).high;
}

}  // namespace kforge::modes
