#pragma once
// Deterministic input generation from a seed, and the perturbation applied between timed pairs.
// Values are a pure function of (seed, tensor index, element index), so generation parallelizes
// and gives the same bytes on every machine with the same libm.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "kforge/core/task_resolve.h"

namespace kforge::core {

// Fills one input buffer according to its InitSpec. Custom inputs are left untouched (the
// task's generate.cpp fills them afterwards).
void fill_input(const ResolvedTensor& t, std::uint64_t seed, std::uint32_t tensor_index,
                void* data);

// dst[i] = src[i] * (1 + u_i), u_i uniform in [-spread, spread] from a table of 4096 draws of
// `seed`, applied cyclically with a seed-dependent rotation. Keeps signs, zeros,
// infinities and masks, yet changes every non-zero value, so a cache keyed on pointers or on
// sampled contents returns stale outputs that the comparison catches.
void perturb(DType dtype, const void* src, void* dst, std::int64_t numel, std::uint64_t seed,
             double spread);

// perturb() in two halves, so that a device can apply the same factors (the GPU judge perturbs
// inputs on the device): the table of kPerturbTable factors of `seed`, already rotated, in the
// dtype's own type (empty for the types perturb copies unchanged), and dst[i] = src[i] *
// table[i % kPerturbTable]: one IEEE multiply per element, so any device gives the same bytes.
constexpr std::int64_t kPerturbTable = 4096;
std::vector<std::byte> perturb_table(DType dtype, std::uint64_t seed, double spread);
void apply_perturb_table(DType dtype, const void* src, void* dst, std::int64_t numel,
                         const std::vector<std::byte>& table);

}  // namespace kforge::core
