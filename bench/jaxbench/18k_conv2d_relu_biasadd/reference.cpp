// Conv2D + ReLU + BiasAdd reference: direct VALID convolution, each output plane accumulated in
// double (planes in parallel; every element's sum is serial, so the result is thread-count free).
#include <algorithm>
#include <vector>

#include "kforge/guard_probe.h"
#include "kforge_task.h"

extern "C" void kernel(const float* x, const float* weight, const float* conv_bias, const float* bias, float* y) {
  using namespace task;
  constexpr std::int64_t OH = H - KS + 1, OW = W - KS + 1;
#pragma omp parallel for collapse(2) schedule(static)
  for (std::int64_t n = 0; n < N; ++n)
    for (std::int64_t co = 0; co < Cout; ++co) {
      std::vector<double> acc(OH * OW, static_cast<double>(conv_bias[co]));
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
      float* dst = y + (n * Cout + co) * OH * OW;
      for (std::int64_t i = 0; i < OH * OW; ++i)
        dst[i] = static_cast<float>((KFORGE_GUARD("relu", acc[i] < 0.0) ? 0.0 : acc[i]) + bias[co]);
    }
}
