// Ragged group sizes for the grouped matmul: skewed expert loads as a learned router produces
// them, with at least one empty expert and one hot expert well above the average, summing to M.
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

#include "kforge_task.h"

namespace {

// splitmix64: a small, well-mixed generator, deterministic in the seed.
struct Rng {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)
  double normal() { return std::sqrt(-2.0 * std::log(1.0 - uniform())) * std::cos(2.0 * M_PI * uniform()); }
  std::int64_t below(std::int64_t n) { return static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(n)); }
};

}  // namespace

extern "C" void generate(std::uint64_t seed, float*, float*, std::int32_t* group_sizes) {
  using namespace task;
  static_assert(G >= 3, "needs room for an empty, a hot and an ordinary group");
  Rng rng{seed ^ 0x67726f7570730000ULL};

  // Expert popularity: log-normal loads (a spread of roughly 0.5x to 2x), one expert never
  // chosen, one hot expert at 2.5 times the mean load of the others.
  std::vector<double> load(G);
  for (auto& w : load) w = std::exp(0.6 * rng.normal());
  const std::int64_t empty = rng.below(G);
  const std::int64_t hot = (empty + 1 + rng.below(G - 1)) % G;
  load[empty] = 0.0;
  load[hot] = 0.0;
  load[hot] = 2.5 * std::accumulate(load.begin(), load.end(), 0.0) / (G - 2);

  // Rows in proportion to the loads, rounded down; the rows left over go one each to the groups
  // with the largest remainders (a nonzero remainder, so the empty group stays empty).
  const double total = std::accumulate(load.begin(), load.end(), 0.0);
  std::vector<double> remainder(G);
  std::int64_t assigned = 0;
  for (std::int64_t g = 0; g < G; ++g) {
    const double share = static_cast<double>(M) * load[g] / total;
    group_sizes[g] = static_cast<std::int32_t>(std::floor(share));
    remainder[g] = share - group_sizes[g];
    assigned += group_sizes[g];
  }
  for (std::int64_t left = M - assigned; left > 0; --left) {
    std::int64_t best = 0;
    for (std::int64_t g = 1; g < G; ++g)
      if (remainder[g] > remainder[best]) best = g;
    ++group_sizes[best];
    remainder[best] = 0.0;
  }
}
