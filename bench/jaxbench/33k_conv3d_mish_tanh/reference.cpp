// Conv3d + Mish + Tanh reference: each output volume is a direct VALID convolution accumulated in
// double, then mish (as the workload writes it, v·tanh(log(1 + exp(v)))) and tanh in double
// (volumes in parallel; every sum is serial, so the result does not depend on the thread count).
#include <cmath>
#include <vector>

#include "kforge_task.h"

extern "C" void kernel(const float* x, const float* weight, const float* bias, float* y) {
  using namespace task;
  constexpr std::int64_t OD = D - KS + 1, OH = H - KS + 1, OW = W - KS + 1, P = OD * OH * OW;
#pragma omp parallel for collapse(2) schedule(static)
  for (std::int64_t n = 0; n < N; ++n)
    for (std::int64_t co = 0; co < Cout; ++co) {
      std::vector<double> acc(P, static_cast<double>(bias[co]));
      for (std::int64_t ci = 0; ci < Cin; ++ci)
        for (std::int64_t kd = 0; kd < KS; ++kd)
          for (std::int64_t kh = 0; kh < KS; ++kh)
            for (std::int64_t kw = 0; kw < KS; ++kw) {
              const double w = weight[(((co * Cin + ci) * KS + kd) * KS + kh) * KS + kw];
              for (std::int64_t od = 0; od < OD; ++od)
                for (std::int64_t oh = 0; oh < OH; ++oh) {
                  const float* row = x + (((n * Cin + ci) * D + od + kd) * H + oh + kh) * W + kw;
                  double* out = acc.data() + (od * OH + oh) * OW;
                  for (std::int64_t ow = 0; ow < OW; ++ow) out[ow] += w * row[ow];
                }
            }
      float* dst = y + (n * Cout + co) * P;
      for (std::int64_t p = 0; p < P; ++p) {
        const double v = acc[p];
        dst[p] = static_cast<float>(std::tanh(v * std::tanh(std::log(1.0 + std::exp(v)))));
      }
    }
}
