// Conv2d → GELU → global average pool reference: one (image, channel) plane at a time in
// parallel, the convolution, the tanh GELU and the mean in double.
#include <cmath>
#include <numbers>
#include <vector>

#include "kforge_task.h"

extern "C" void kernel(const float* x, const float* weight, const float* bias, float* y) {
  using namespace task;
  constexpr std::int64_t OH = H - KS + 1, OW = W - KS + 1;
  const double c = std::sqrt(2.0 / std::numbers::pi);
#pragma omp parallel for collapse(2) schedule(dynamic)
  for (std::int64_t n = 0; n < NB; ++n)
    for (std::int64_t co = 0; co < CO; ++co) {
      std::vector<double> acc(OH * OW, static_cast<double>(bias[co]));
      for (std::int64_t ci = 0; ci < CI; ++ci)
        for (std::int64_t kh = 0; kh < KS; ++kh)
          for (std::int64_t kw = 0; kw < KS; ++kw) {
            const double w = weight[((co * CI + ci) * KS + kh) * KS + kw];
            const float* xin = x + ((n * CI + ci) * H + kh) * W + kw;
            for (std::int64_t oh = 0; oh < OH; ++oh)
              for (std::int64_t ow = 0; ow < OW; ++ow) acc[oh * OW + ow] += w * xin[oh * W + ow];
          }
      double sum = 0;
      for (double v : acc) sum += 0.5 * v * (1.0 + std::tanh(c * (v + 0.044715 * v * v * v)));
      y[n * CO + co] = static_cast<float>(sum / static_cast<double>(OH * OW));
    }
}
