// Prepended to every adversarial kernel by the test fixture: a correct RMSNorm for the
// 12p_rmsnorm task, so each hostile kernel shows only its trick.
#include <cmath>
#include <cstdint>
#include <cstring>

#include "kforge_task.h"

static void rmsnorm_correct(const float* x, const float* scale, float* y) {
  using namespace task;
  for (std::int64_t r = 0; r < B * S; ++r) {
    double ss = 0;
    for (std::int64_t d = 0; d < D; ++d) ss += double(x[r * D + d]) * x[r * D + d];
    float inv = float(1.0 / std::sqrt(ss / D + eps));
    for (std::int64_t d = 0; d < D; ++d) y[r * D + d] = x[r * D + d] * inv * scale[d];
  }
}
