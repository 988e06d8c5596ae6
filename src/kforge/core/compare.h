#pragma once
// Element-by-element comparison under the evaluation contract's rule:
//   |c − r| ≤ atol + rtol·|r|, and a non-finite value passes only where the expected value is
//   the same non-finite value (NaN where NaN, +inf where +inf).
// Used by the parent against reference outputs and by the runner against the baseline in timing.

#include <cstdint>
#include <vector>

#include "kforge/core/dtype.h"

namespace kforge::core {

struct CompareSummary {
  std::int64_t numel = 0;
  std::int64_t bad = 0;         // elements outside tolerance
  std::int64_t nan_actual = 0;  // NaN in the actual output where the expected value is not NaN
  std::int64_t first_bad = -1;  // flat index
  std::int64_t last_bad = -1;
  std::int64_t worst = -1;  // flat index of the largest error (finite elements)
  double max_abs = 0;       // over all compared elements
  double max_rel = 0;
  double worst_actual = 0;
  double worst_expected = 0;
  bool ok() const { return bad == 0; }
};

CompareSummary compare_buffers(DType dtype, const void* actual, const void* expected,
                               std::int64_t numel, double rtol, double atol);

// Per dimension, the [min, max] index range of the bad elements (for "errors cluster in rows
// 512-1023").
struct BadExtent {
  std::vector<std::int64_t> lo, hi;
};
BadExtent bad_extent(DType dtype, const void* actual, const void* expected,
                     const std::vector<std::int64_t>& shape, double rtol, double atol);

}  // namespace kforge::core
