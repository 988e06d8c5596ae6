// Pair mask for the triangle multiplication: JAXBench passes all ones; this generates what a real
// AlphaFold pair mask looks like, mask[i][j] = m[i]·m[j] for a per-residue mask m that pads a
// ragged tail (the chain is shorter than the crop) and drops scattered unresolved residues.
#include <cstdint>

#include "kforge_task.h"

namespace {

std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

double unit(std::uint64_t& state) { return static_cast<double>(splitmix64(state) >> 11) * 0x1.0p-53; }

}  // namespace

extern "C" void generate(std::uint64_t seed, float* /*pair_act*/, float* mask, float* /*left_proj_w*/,
                         float* /*right_proj_w*/, float* /*left_gate_w*/, float* /*right_gate_w*/,
                         float* /*center_scale*/, float* /*output_proj_w*/, float* /*output_gate_w*/) {
  using namespace task;
  std::uint64_t state = seed;
  // Between 1 and N/8 + 1 padded residues at the end; 1 in 16 of the others missing.
  const std::int64_t padded = 1 + static_cast<std::int64_t>(unit(state) * static_cast<double>(N / 8 + 1));
  bool residue[N];
  for (std::int64_t i = 0; i < N; ++i) residue[i] = i < N - padded && unit(state) >= 1.0 / 16;
  for (std::int64_t i = 0; i < N; ++i)
    for (std::int64_t j = 0; j < N; ++j) mask[i * N + j] = residue[i] && residue[j] ? 1.0f : 0.0f;
}
