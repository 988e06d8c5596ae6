// Conv2d + InstanceNorm + Divide reference: each output plane is a direct VALID convolution
// accumulated in double, normalised with its own two-pass mean and biased variance (planes in
// parallel; every sum is serial, so the result does not depend on the thread count).
#include <cmath>
#include <vector>

#include "kforge_task.h"

extern "C" void kernel(const float* x, const float* weight, const float* conv_bias, const float* in_weight,
                       const float* in_bias, float* y) {
  using namespace task;
  constexpr std::int64_t OH = H - KS + 1, OW = W - KS + 1, P = OH * OW;
#pragma omp parallel for collapse(2) schedule(static)
  for (std::int64_t n = 0; n < N; ++n)
    for (std::int64_t co = 0; co < Cout; ++co) {
      std::vector<double> acc(P, static_cast<double>(conv_bias[co]));
      for (std::int64_t ci = 0; ci < Cin; ++ci) {
        const float* plane = x + (n * Cin + ci) * H * W;
        for (std::int64_t kh = 0; kh < KS; ++kh)
          for (std::int64_t kw = 0; kw < KS; ++kw) {
            const double w = weight[((co * Cin + ci) * KS + kh) * KS + kw];
            for (std::int64_t oh = 0; oh < OH; ++oh) {
              const float* row = plane + (oh + kh) * W + kw;
              double* out = acc.data() + oh * OW;
              for (std::int64_t ow = 0; ow < OW; ++ow) out[ow] += w * row[ow];
            }
          }
      }
      double mean = 0;
      for (double v : acc) mean += v;
      mean /= P;
      double var = 0;
      for (double v : acc) var += (v - mean) * (v - mean);
      var /= P;
      const double inv_std = 1.0 / std::sqrt(var + f64::eps);
      float* dst = y + (n * Cout + co) * P;
      for (std::int64_t i = 0; i < P; ++i)
        dst[i] = static_cast<float>(((acc[i] - mean) * inv_std * in_weight[co] + in_bias[co]) / static_cast<double>(divide_by));
    }
}
