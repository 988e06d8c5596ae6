#pragma once
// The search algorithms, each in a file of its own, each deciding only from the driver's graph
// (paired ratios) and its seeded generator:
//   parallel  N expansions from the root, each with a distinct strategy;
//   beam      depth by depth, every beam node expanded with strategies not yet used on its path;
//             only correct children not much slower than their parent (side by side) enter the
//             beam, which shrinks rather than fills up with invalid nodes;
//   evolve    islands of kernels and a MAP-Elites archive (strategy family × code feature);
//             parents chosen by exploitation (an island's best) or exploration (a random elite),
//             some children by crossover (the coder combines two parents).

#include <cstddef>
#include <random>
#include <string>
#include <vector>

#include "kforge/modes/search.h"
#include "kforge/modes/search_driver.h"

namespace kforge::modes {

void run_parallel(SearchDriver& d, const SearchOptions& o);
void run_beam(SearchDriver& d, const SearchOptions& o);
void run_evolve(SearchDriver& d, const SearchOptions& o);

// How nodes rank (said in the search's JSON as ranked_by): a node's score is the product of the
// side-by-side ratios along its path, with the product of their 95% intervals; two nodes whose
// intervals overlap are tied (their medians came from separate runs), and a tie goes to the
// shallower node, then to the one made first.
inline constexpr const char* kRankingRule =
    "paired ratios along each node's path; overlapping 95% intervals are ties, broken by depth "
    "(shallower first), then by the node made first";
// `ids` best first by that rule.
std::vector<std::int64_t> rank_nodes(const SearchDriver& d, std::vector<std::int64_t> ids);
// Whether `a` beats `b` beyond a tie: its interval lies above b's (a correct node always beats an
// invalid one).
bool clearly_above(const SearchDriver& d, std::int64_t a, std::int64_t b);

// Picks `n` distinct items in a seeded order.
std::vector<std::string> sample(std::vector<std::string> items, std::size_t n,
                                std::mt19937_64& rng);

}  // namespace kforge::modes
