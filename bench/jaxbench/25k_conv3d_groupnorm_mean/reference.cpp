// Conv3d + GroupNorm + Mean reference: for each sample, every output channel's volume is a direct
// VALID convolution accumulated in double; each group is normalised with its two-pass mean and
// biased variance, the affine applied, and everything averaged in double (samples in parallel;
// every sum is serial, so the result does not depend on the thread count).
#include <cmath>
#include <vector>

#include "kforge_task.h"

extern "C" void kernel(const float* x, const float* weight, const float* conv_bias, const float* gamma,
                       const float* beta, float* y) {
  using namespace task;
  constexpr std::int64_t OD = D - KS + 1, OH = H - KS + 1, OW = W - KS + 1, P = OD * OH * OW;
  constexpr std::int64_t CG = Cout / G;
#pragma omp parallel for schedule(static)
  for (std::int64_t n = 0; n < N; ++n) {
    std::vector<double> vol(Cout * P);
    for (std::int64_t co = 0; co < Cout; ++co) {
      double* acc = vol.data() + co * P;
      for (std::int64_t p = 0; p < P; ++p) acc[p] = conv_bias[co];
      for (std::int64_t ci = 0; ci < Cin; ++ci)
        for (std::int64_t kd = 0; kd < KS; ++kd)
          for (std::int64_t kh = 0; kh < KS; ++kh)
            for (std::int64_t kw = 0; kw < KS; ++kw) {
              const double w = weight[(((co * Cin + ci) * KS + kd) * KS + kh) * KS + kw];
              for (std::int64_t od = 0; od < OD; ++od)
                for (std::int64_t oh = 0; oh < OH; ++oh) {
                  const float* row = x + (((n * Cin + ci) * D + od + kd) * H + oh + kh) * W + kw;
                  double* out = acc + (od * OH + oh) * OW;
                  for (std::int64_t ow = 0; ow < OW; ++ow) out[ow] += w * row[ow];
                }
            }
    }
    double total = 0;
    for (std::int64_t g = 0; g < G; ++g) {
      const double* grp = vol.data() + g * CG * P;
      double mean = 0;
      for (std::int64_t i = 0; i < CG * P; ++i) mean += grp[i];
      mean /= CG * P;
      double var = 0;
      for (std::int64_t i = 0; i < CG * P; ++i) var += (grp[i] - mean) * (grp[i] - mean);
      var /= CG * P;
      const double inv_std = 1.0 / std::sqrt(var + f64::eps);
      for (std::int64_t c = g * CG; c < (g + 1) * CG; ++c)
        for (std::int64_t p = 0; p < P; ++p) total += (vol[c * P + p] - mean) * inv_std * gamma[c] + beta[c];
    }
    y[n] = static_cast<float>(total / (Cout * P));
  }
}
