// ConvTranspose3d + LayerNorm + GELU + Scaling reference. The transposed convolution scatters
// every input voxel through every kernel tap, out[2d − 1 + kd, 2h − 1 + kh, 2w − 1 + kw] +=
// x[d, h, w]·W[kd, kh, kw], into one double volume per (sample, output channel); then each row
// along W is normalised with its two-pass mean and biased variance, the affine applied (indexed
// by the W position, as the workload broadcasts it), the tanh-approximated GELU and the scale
// (volumes in parallel; every sum is serial, so the result does not depend on the thread count).
#include <cmath>
#include <numbers>
#include <vector>

#include "kforge_task.h"

extern "C" void kernel(const float* x, const float* conv_weight, const float* conv_bias, const float* ln_weight,
                       const float* ln_bias, float* y) {
  using namespace task;
  constexpr std::int64_t OD = (D - 1) * S - 2 * P + KS, OH = (H - 1) * S - 2 * P + KS, OW = (W - 1) * S - 2 * P + KS;
  static_assert(OW == Cout, "the LayerNorm's weight (length Cout) broadcasts along W_out");
  const double gelu_c = std::sqrt(2.0 / std::numbers::pi);
#pragma omp parallel for collapse(2) schedule(static)
  for (std::int64_t n = 0; n < N; ++n)
    for (std::int64_t co = 0; co < Cout; ++co) {
      std::vector<double> acc(OD * OH * OW, static_cast<double>(conv_bias[co]));
      for (std::int64_t ci = 0; ci < Cin; ++ci)
        for (std::int64_t kd = 0; kd < KS; ++kd)
          for (std::int64_t kh = 0; kh < KS; ++kh)
            for (std::int64_t kw = 0; kw < KS; ++kw) {
              const double w = conv_weight[(((ci * Cout + co) * KS + kd) * KS + kh) * KS + kw];
              for (std::int64_t d = 0; d < D; ++d) {
                const std::int64_t od = d * S - P + kd;
                if (od < 0 || od >= OD) continue;  // not a guard: the padding's crop, an index bound
                for (std::int64_t h = 0; h < H; ++h) {
                  const std::int64_t oh = h * S - P + kh;
                  if (oh < 0 || oh >= OH) continue;  // not a guard: the padding's crop, an index bound
                  const float* xrow = x + (((n * Cin + ci) * D + d) * H + h) * W;
                  double* orow = acc.data() + (od * OH + oh) * OW;
                  for (std::int64_t wi = 0; wi < W; ++wi) {
                    const std::int64_t ow = wi * S - P + kw;
                    // not a guard: the padding's crop, an index bound
                    if (ow >= 0 && ow < OW) orow[ow] += w * xrow[wi];
                  }
                }
              }
            }
      for (std::int64_t r = 0; r < OD * OH; ++r) {
        const double* row = acc.data() + r * OW;
        double mean = 0;
        for (std::int64_t i = 0; i < OW; ++i) mean += row[i];
        mean /= OW;
        double var = 0;
        for (std::int64_t i = 0; i < OW; ++i) var += (row[i] - mean) * (row[i] - mean);
        var /= OW;
        const double inv_std = 1.0 / std::sqrt(var + f64::eps);
        float* dst = y + ((n * Cout + co) * OD * OH + r) * OW;
        for (std::int64_t i = 0; i < OW; ++i) {
          const double v = (row[i] - mean) * inv_std * ln_weight[i] + ln_bias[i];
          const double gelu = 0.5 * v * (1.0 + std::tanh(gelu_c * (v + 0.044715 * v * v * v)));
          dst[i] = static_cast<float>(gelu * static_cast<double>(scaling_factor));
        }
      }
    }
}
