// SwiGLU MLP reference: per token, both projections, the gated hidden vector and the down
// projection, all accumulated in double (tokens in parallel; each sum is serial, so the result
// does not depend on the thread count).
#include <cmath>
#include <vector>

#include "kforge_task.h"

extern "C" void kernel(const float* x, const float* gate_kernel, const float* up_kernel, const float* down_kernel,
                       float* out) {
  using namespace task;
#pragma omp parallel for schedule(static)
  for (std::int64_t t = 0; t < B * S; ++t) {
    const float* xt = x + t * E;
    std::vector<double> gate(M, 0.0), up(M, 0.0), acc(E, 0.0);
    for (std::int64_t e = 0; e < E; ++e) {
      const double xe = xt[e];
      const float* grow = gate_kernel + e * M;
      const float* urow = up_kernel + e * M;
      for (std::int64_t m = 0; m < M; ++m) {
        gate[m] += xe * grow[m];
        up[m] += xe * urow[m];
      }
    }
    for (std::int64_t m = 0; m < M; ++m) {
      const double hidden = gate[m] / (1.0 + std::exp(-gate[m])) * up[m];  // silu(g) = g·sigmoid(g)
      const float* drow = down_kernel + m * E;
      for (std::int64_t e = 0; e < E; ++e) acc[e] += hidden * drow[e];
    }
    for (std::int64_t e = 0; e < E; ++e) out[t * E + e] = static_cast<float>(acc[e]);
  }
}
