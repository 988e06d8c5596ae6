#pragma once
// Places every buffer the kernel sees between guard regions: PROT_NONE reservations before and
// after its pages, with the data ending where the pages end (see core/buffer_layout.h). A guard is
// as large as the buffer (at least 1 MiB, at most 64 MiB), so an access a whole row or a whole
// batch past either end faults rather than landing in a neighbour. Inputs come from sealed shared
// memory mapped read-only; outputs from kforge's shared file mapped read-write.

#include <cstddef>
#include <string>
#include <vector>

#include "kforge/core/buffer_layout.h"
#include "kforge/core/result.h"
#include "kforge/runner/fault_report.h"
#include "kforge/runner/job.h"

namespace kforge::runner {

struct GuardedBuffer {
  void* data = nullptr;
  std::size_t bytes = 0;
  void* pages = nullptr;  // page-aligned start of the mapping that holds data
  std::size_t pages_bytes = 0;
};

// Maps one tensor of a shared file (`slot` from layout_tensors) with `prot` between guards.
Result<GuardedBuffer> map_guarded_shared(int fd, const core::TensorSlot& slot, int prot,
                                         RegionKind kind, const std::string& name);

// Every tensor of a shared file laid out by core::layout_tensors, each between its own guards.
Result<std::vector<GuardedBuffer>> map_tensor_set(int fd, const std::vector<TensorInfo>& tensors,
                                                  int prot, RegionKind kind);

// Size of the guard on each side of a buffer of `pages_bytes`.
std::size_t guard_bytes(std::size_t pages_bytes);

}  // namespace kforge::runner
