// Inputs of the general case that JAXBench's create_inputs never produces: ragged kv_lens (one
// sequence inside its first page, one at full length, the rest uniform in [1, S]) and a page table
// that is a random permutation of all pages, so the pages of different sequences interleave.
#include <numeric>
#include <utility>

#include "kforge_task.h"

namespace {

struct SplitMix64 {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  std::int64_t below(std::int64_t n) { return static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(n)); }
};

}  // namespace

extern "C" void generate(std::uint64_t seed, float*, float*, float*, std::int32_t* kv_lens, std::int32_t* page_indices) {
  using namespace task;
  constexpr std::int64_t S = PPS * PS;
  static_assert(N >= 2, "one short and one full-length sequence");
  SplitMix64 rng{seed ^ 0x6b765f6c656e73ULL};
  for (std::int64_t n = 0; n < N; ++n) kv_lens[n] = static_cast<std::int32_t>(1 + rng.below(S));
  const std::int64_t short_seq = rng.below(N);
  const std::int64_t full_seq = (short_seq + 1 + rng.below(N - 1)) % N;
  kv_lens[short_seq] = static_cast<std::int32_t>(1 + rng.below(PS));
  kv_lens[full_seq] = static_cast<std::int32_t>(S);

  std::iota(page_indices, page_indices + N * PPS, 0);
  for (std::int64_t i = N * PPS - 1; i > 0; --i) std::swap(page_indices[i], page_indices[rng.below(i + 1)]);
}
