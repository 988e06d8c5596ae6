// The general case of JAXBench's slot layout, drawn per seed: NDEC one-token decodes, then prefill
// chunks of random length up to their slot's capacity, a random number of active slots, ragged kv
// lengths (each at least the slot's q_len, so every row sees key 0; one decode at the full S) and a
// page table that is a random permutation of all pages.
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
  // Uniform in [lo, hi].
  std::int64_t between(std::int64_t lo, std::int64_t hi) {
    return lo + static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(hi - lo + 1));
  }
};

}  // namespace

extern "C" void generate(std::uint64_t seed, float*, float*, std::int32_t* kv_lens, std::int32_t* page_indices,
                         std::int32_t* cu_q_lens, std::int32_t* num_seqs) {
  using namespace task;
  constexpr std::int64_t S = PPS * PS;
  constexpr std::int64_t last_capacity = T - NDEC - (NPRE - 1) * CHUNK;
  static_assert(NDEC + NPRE <= NS && last_capacity >= 1 && last_capacity <= S && CHUNK <= S);
  SplitMix64 rng{seed ^ 0x7261676765645fULL};

  const std::int64_t active = rng.between(NDEC + 1, NDEC + NPRE);
  num_seqs[0] = static_cast<std::int32_t>(active);
  cu_q_lens[0] = 0;
  for (std::int64_t i = 0; i < NS; ++i) {
    std::int64_t q_len = 0, kv_len = 0;
    if (i < NDEC) {
      q_len = 1;
      kv_len = rng.between(1, S);
    } else if (i < active) {
      q_len = rng.between(1, i == NDEC + NPRE - 1 ? last_capacity : CHUNK);
      kv_len = rng.between(q_len, S);
    }
    kv_lens[i] = static_cast<std::int32_t>(kv_len);
    cu_q_lens[i + 1] = static_cast<std::int32_t>(cu_q_lens[i] + q_len);
  }
  kv_lens[rng.between(0, NDEC - 1)] = static_cast<std::int32_t>(S);  // one decode at full length: the length mask idle

  std::iota(page_indices, page_indices + NS * PPS, 0);
  for (std::int64_t i = NS * PPS - 1; i > 0; --i) std::swap(page_indices[i], page_indices[rng.between(0, i)]);
}
