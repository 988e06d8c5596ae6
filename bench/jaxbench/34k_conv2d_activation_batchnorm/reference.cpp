// Conv2d → Mish → BatchNorm reference: one output channel at a time (channels in parallel), the
// convolution, activation and batch statistics all in double.
#include <cmath>
#include <vector>

#include "kforge_task.h"

namespace {

// not a guard: the stable softplus, log1p(exp(v)) on both sides
double softplus(double v) { return std::max(v, 0.0) + std::log1p(std::exp(-std::fabs(v))); }

}  // namespace

extern "C" void kernel(const float* x, const float* conv_weight, const float* conv_bias, const float* bn_weight,
                       const float* bn_bias, float* y) {
  using namespace task;
  constexpr std::int64_t OH = H - KS + 1, OW = W - KS + 1, plane = OH * OW;
#pragma omp parallel for schedule(dynamic)
  for (std::int64_t co = 0; co < CO; ++co) {
    std::vector<double> act(NB * plane, 0.0);
    for (std::int64_t n = 0; n < NB; ++n) {
      double* acc = act.data() + n * plane;
      for (std::int64_t ci = 0; ci < CI; ++ci)
        for (std::int64_t kh = 0; kh < KS; ++kh)
          for (std::int64_t kw = 0; kw < KS; ++kw) {
            const double w = conv_weight[((co * CI + ci) * KS + kh) * KS + kw];
            const float* xin = x + ((n * CI + ci) * H + kh) * W + kw;
            for (std::int64_t oh = 0; oh < OH; ++oh)
              for (std::int64_t ow = 0; ow < OW; ++ow) acc[oh * OW + ow] += w * xin[oh * W + ow];
          }
    }
    double sum = 0;
    for (double& v : act) {
      v += conv_bias[co];
      v = std::tanh(softplus(v)) * v;
      sum += v;
    }
    const double mean = sum / static_cast<double>(act.size());
    double sq = 0;
    for (double v : act) sq += (v - mean) * (v - mean);
    const double var = sq / static_cast<double>(act.size());
    const double scale = bn_weight[co] / std::sqrt(var + f64::eps);
    for (std::int64_t n = 0; n < NB; ++n)
      for (std::int64_t i = 0; i < plane; ++i)
        y[(n * CO + co) * plane + i] = static_cast<float>((act[n * plane + i] - mean) * scale + bn_bias[co]);
  }
}
