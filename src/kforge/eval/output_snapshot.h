#pragma once
// kforge's own copy of a kernel's outputs, taken the moment kforge sees the call end. The copy
// walks 64 KiB chunks in an order drawn from kforge's generator, so a kernel that claims to have
// returned while a thread of its own still writes cannot stay ahead of the copy: whatever it
// writes after the copy passed is caught by `unchanged_since` (kforge compares the live buffers
// with the copy once the process is idle).

#include <cstddef>
#include <random>
#include <vector>

#include "kforge/core/task_resolve.h"

namespace kforge::eval {

using OutputSnapshot = std::vector<std::vector<unsigned char>>;  // one byte vector per output

// `outputs[i]` points at output i (as kforge maps it), `bytes[i]` its size.
void take_snapshot(const std::vector<const unsigned char*>& outputs,
                   const std::vector<std::size_t>& bytes, std::mt19937_64& rng,
                   OutputSnapshot& into);
bool unchanged_since(const std::vector<const unsigned char*>& outputs,
                     const OutputSnapshot& snapshot);

// Fills every output with a poison value (NaN for floats: every bit set; a sentinel for integers):
// an element the kernel does not write cannot pass.
void poison_outputs(const std::vector<unsigned char*>& outputs,
                    const std::vector<core::ResolvedTensor>& tensors);

}  // namespace kforge::eval
