#pragma once
// Places every buffer the kernel sees between guard pages: a PROT_NONE page before and after
// its pages, with the data ending where the pages end (see core/buffer_layout.h). Inputs come
// from sealed shared memory mapped read-only; outputs are private read-write pages.

#include <cstddef>
#include <string>
#include <vector>

#include "kforge/core/buffer_layout.h"
#include "kforge/core/result.h"
#include "kforge/runner/fault_report.h"

namespace kforge::runner {

struct GuardedBuffer {
  void* data = nullptr;
  std::size_t bytes = 0;
  void* pages = nullptr;  // page-aligned start of the mapping that holds data
  std::size_t pages_bytes = 0;
};

// Maps one tensor of a shared file (`slot` from layout_tensors) with `prot` between guards.
Result<GuardedBuffer> map_guarded_shared(int fd, const core::TensorSlot& slot, int prot, RegionKind kind, const std::string& name);

// Fresh private read-write memory laid out the same way.
Result<GuardedBuffer> map_guarded_private(std::size_t bytes, RegionKind kind, const std::string& name);

}  // namespace kforge::runner
