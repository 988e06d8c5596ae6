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

// Picks `n` distinct items in a seeded order.
std::vector<std::string> sample(std::vector<std::string> items, std::size_t n,
                                std::mt19937_64& rng);

}  // namespace kforge::modes
