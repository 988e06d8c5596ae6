// Labels uniform in [0, V), as JAXBench's randint draws them. A generator because a randint
// bound in task.toml must be a number, while V differs between sizes.
#include <cstdint>

#include "kforge_task.h"

extern "C" void generate(std::uint64_t seed, float*, float*, std::int32_t* labels) {
  using namespace task;
  std::uint64_t state = seed ^ 0x6c6162656c730000ULL;
  for (std::int64_t t = 0; t < T; ++t) {
    // splitmix64; the modulo bias (below V/2^64) is immaterial.
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    labels[t] = static_cast<std::int32_t>((z ^ (z >> 31)) % static_cast<std::uint64_t>(V));
  }
}
