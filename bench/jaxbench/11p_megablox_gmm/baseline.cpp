// Grouped matmul as PyTorch eager runs it: one matmul per expert on that expert's slice of rows,
// written into its slice of the output (OpenBLAS sgemm underneath). Eager mode slices the true
// group sizes, so it needs none of the JAX version's fixed windows and masks.
#include <ATen/ATen.h>
#include <kforge/torch_view.h>

#include "kforge_task.h"

extern "C" void kernel(const float* lhs, const float* rhs, const std::int32_t* group_sizes, float* out) {
  using namespace task;
  auto Lhs = kforge_torch::view(lhs, {M, K});
  auto Rhs = kforge_torch::view(rhs, {G, K, N});
  auto Out = kforge_torch::view(out, {M, N});
  std::int64_t start = 0;
  for (std::int64_t g = 0; g < G; ++g) {
    const std::int64_t rows = group_sizes[g];
    if (rows > 0) {
      auto out_rows = Out.narrow(0, start, rows);
      at::mm_out(out_rows, Lhs.narrow(0, start, rows), Rhs[g]);
    }
    start += rows;
  }
}
