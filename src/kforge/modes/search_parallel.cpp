// Parallel search: one wave of distinct strategies from the root.
#include <algorithm>

#include "kforge/modes/search_algorithms.h"

namespace kforge::modes {

std::vector<std::string> sample(std::vector<std::string> items, std::size_t n,
                                std::mt19937_64& rng) {
  std::shuffle(items.begin(), items.end(), rng);
  if (items.size() > n) items.resize(n);
  return items;
}

void run_parallel(SearchDriver& d, const SearchOptions& o) {
  std::vector<Expansion> wave;
  for (const auto& sid :
       sample(d.unused_strategies(d.root()), static_cast<std::size_t>(o.width), d.rng()))
    wave.push_back({"parallel/" + sid, d.root(), sid, std::nullopt});
  d.plan(static_cast<int>(wave.size()), 1);
  d.run_wave(wave);
}

}  // namespace kforge::modes
