// Grouped matmul: one parallel region for all groups instead of one BLAS call (and one thread
// barrier) per group, each work item a plain GEMM of kforge/fused_gemm.h (Goto/BLIS blocking, a
// 14x32 AVX-512 or 6x16 AVX2 register tile chosen at compile time) on its thread's own packing
// buffers.
//
// Work items are groups, or row chunks of the largest ones, handed out dynamically largest first,
// so ragged, empty or hot groups cannot unbalance the threads and a thread that loses its core
// for a while does not hold the other one up.
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "kforge_task.h"
#include "kforge/fused_gemm.h"

namespace {

namespace gemm = kforge::gemm;

constexpr std::int64_t CHUNK = 384;  // the most rows of one group in one work item

struct Item {
  std::int64_t group, row, rows;
};

}  // namespace

extern "C" void kernel(const float* lhs, const float* rhs, const std::int32_t* group_sizes, float* out) {
  using namespace task;
  std::vector<Item> items;
  for (std::int64_t g = 0, row = 0; g < G; row += group_sizes[g++])
    for (std::int64_t r = 0; r < group_sizes[g]; r += CHUNK)
      items.push_back({g, row + r, std::min<std::int64_t>(CHUNK, group_sizes[g] - r)});
  std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.rows > b.rows; });
  const auto count = static_cast<std::int64_t>(items.size());

  // Per thread: an A block, then a B panel (both multiples of 16 floats: 64-byte aligned).
  constexpr std::int64_t a_floats = gemm::a_block_floats(CHUNK, K), b_floats = gemm::b_panel_floats(N, K);
  const int threads = omp_get_max_threads();
  float* const pool = gemm::scratch((a_floats + b_floats) * threads);
#pragma omp parallel num_threads(threads)
  {
    float* const ap = pool + omp_get_thread_num() * (a_floats + b_floats);
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t i = 0; i < count; ++i) {
      const Item& it = items[i];
      gemm::gemm_block<K, N>(lhs + it.row * K, rhs + it.group * K * N, out + it.row * N, 0, it.rows, 0, N, ap,
                             ap + a_floats);
    }
  }
}
