// Conv2d → GroupNorm → Tanh → HardSwish → residual → LogSumExp: oneDNN's convolution (bias fused)
// writes its output in the 8-channel-blocked layout nChw8c, where each pixel's channels come in
// contiguous groups of 8. Two passes over it gather every channel's sum and squared deviation
// (double, flushed once per image row); the group statistics and the affine fold into one
// multiply-add per channel. A last pass takes each pixel's CO channels through normalize, tanh,
// hardswish and the residual in AVX2 registers and reduces them to the logsumexp right there:
// the (batch, CO, H, W) intermediates the op-by-op version writes never exist.
#include <dnnl.hpp>
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "kforge_task.h"
#include "kforge/simd_math.h"

namespace {

using kforge::simd::exp_ps;
using kforge::simd::hmax;
using kforge::simd::hsum;
using kforge::simd::tanh_ps;

using dnnl::memory;
using tag = memory::format_tag;
using dt = memory::data_type;

constexpr std::int64_t OH = task::H - task::KS + 1, OW = task::W - task::KS + 1, PLANE = OH * OW;
constexpr std::int64_t CB = task::CO / 8;  // channel blocks of nChw8c
constexpr std::int64_t CG = task::CO / task::G;
static_assert(task::CO % 8 == 0, "nChw8c without padded channels");

struct Conv {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  memory::desc src_user{{task::NB, task::CI, task::H, task::W}, dt::f32, tag::nchw};
  memory::desc wei_user{{task::CO, task::CI, task::KS, task::KS}, dt::f32, tag::oihw};
  memory::desc bias{{task::CO}, dt::f32, tag::x};
  memory::desc dst_blocked{{task::NB, task::CO, OH, OW}, dt::f32, tag::nChw8c};
  dnnl::convolution_forward::primitive_desc pd;
  dnnl::convolution_forward conv;
  memory src, wei, dst;  // src and weights in the layouts the convolution chose
  dnnl::reorder to_src, to_wei;
  // Per image and channel: the channel's sum and squared deviation, then the folded affine a·v + b.
  std::vector<double> sum = std::vector<double>(task::NB * task::CO), sq = std::vector<double>(task::NB * task::CO);
  std::vector<float> mean = std::vector<float>(task::NB * task::CO);
  std::vector<float> a = std::vector<float>(task::NB * task::CO), b = std::vector<float>(task::NB * task::CO);

  Conv() {
    auto any = [](memory::dims d) { return memory::desc(d, dt::f32, tag::any); };
    pd = dnnl::convolution_forward::primitive_desc(
        dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                                        any(src_user.dims()), any(wei_user.dims()), bias, dst_blocked, {1, 1},
                                        {0, 0}, {0, 0}),
        engine);
    conv = dnnl::convolution_forward(pd);
    src = memory(pd.src_desc(), engine);
    wei = memory(pd.weights_desc(), engine);
    dst = memory(dst_blocked, engine);
    to_src = dnnl::reorder(dnnl::reorder::primitive_desc(engine, src_user, engine, pd.src_desc()));
    to_wei = dnnl::reorder(dnnl::reorder::primitive_desc(engine, wei_user, engine, pd.weights_desc()));
  }
};

// Adds each lane's Σ f(v) over one block's pixels to out[0..8), in float per image row, double across rows.
template <class F>
void block_sums(const float* block, F f, double* out) {
  double total[8] = {};
  for (std::int64_t r = 0; r < OH; ++r) {
    __m256 acc = _mm256_setzero_ps();
    for (std::int64_t p = r * OW; p < (r + 1) * OW; ++p) acc = _mm256_add_ps(acc, f(_mm256_loadu_ps(block + p * 8)));
    alignas(32) float lanes[8];
    _mm256_store_ps(lanes, acc);
    for (int l = 0; l < 8; ++l) total[l] += lanes[l];
  }
  for (int l = 0; l < 8; ++l) out[l] = total[l];
}

}  // namespace

extern "C" void kernel(const float* x, const float* conv_weight, const float* conv_bias, const float* gn_weight,
                       const float* gn_bias, float* y) {
  using namespace task;
  static Conv c;  // built once (oneDNN generates its kernels here), reused every call
  memory x_mem(c.src_user, c.engine, const_cast<float*>(x));
  memory w_mem(c.wei_user, c.engine, const_cast<float*>(conv_weight));
  memory b_mem(c.bias, c.engine, const_cast<float*>(conv_bias));
  c.to_src.execute(c.stream, x_mem, c.src);
  c.to_wei.execute(c.stream, w_mem, c.wei);
  c.conv.execute(c.stream, {{DNNL_ARG_SRC, c.src}, {DNNL_ARG_WEIGHTS, c.wei}, {DNNL_ARG_BIAS, b_mem}, {DNNL_ARG_DST, c.dst}});
  c.stream.wait();
  const float* d = static_cast<const float*>(c.dst.get_data_handle());
  auto block = [d](std::int64_t n, std::int64_t cb) { return d + (n * CB + cb) * PLANE * 8; };

#pragma omp parallel
  {
#pragma omp for schedule(dynamic)
    for (std::int64_t nb = 0; nb < NB * CB; ++nb)
      block_sums(block(nb / CB, nb % CB), [](__m256 v) { return v; }, c.sum.data() + nb * 8);
#pragma omp single
    for (std::int64_t n = 0; n < NB; ++n)
      for (std::int64_t g = 0; g < G; ++g) {
        double s = 0;
        for (std::int64_t ch = g * CG; ch < (g + 1) * CG; ++ch) s += c.sum[n * CO + ch];
        for (std::int64_t ch = g * CG; ch < (g + 1) * CG; ++ch) c.mean[n * CO + ch] = static_cast<float>(s / (CG * PLANE));
      }
#pragma omp for schedule(dynamic)
    for (std::int64_t nb = 0; nb < NB * CB; ++nb) {
      const __m256 mean = _mm256_loadu_ps(c.mean.data() + nb * 8);
      block_sums(block(nb / CB, nb % CB), [mean](__m256 v) { const __m256 t = _mm256_sub_ps(v, mean); return _mm256_mul_ps(t, t); },
                 c.sq.data() + nb * 8);
    }
#pragma omp single
    for (std::int64_t n = 0; n < NB; ++n)
      for (std::int64_t g = 0; g < G; ++g) {
        double s = 0;
        for (std::int64_t ch = g * CG; ch < (g + 1) * CG; ++ch) s += c.sq[n * CO + ch];
        const float inv = static_cast<float>(1.0 / std::sqrt(s / (CG * PLANE) + f64::eps));
        for (std::int64_t ch = g * CG; ch < (g + 1) * CG; ++ch) {
          c.a[n * CO + ch] = inv * gn_weight[ch];
          c.b[n * CO + ch] = gn_bias[ch] - c.mean[n * CO + ch] * c.a[n * CO + ch];
        }
      }
#pragma omp for schedule(static)
    for (std::int64_t np = 0; np < NB * PLANE; ++np) {
      const std::int64_t n = np / PLANE, p = np % PLANE;
      __m256 r[CB];
      __m256 vmax = _mm256_set1_ps(-INFINITY);
      for (std::int64_t cb = 0; cb < CB; ++cb) {
        const __m256 v = _mm256_loadu_ps(block(n, cb) + p * 8);
        const __m256 t = tanh_ps(_mm256_fmadd_ps(v, _mm256_loadu_ps(c.a.data() + n * CO + cb * 8),
                                                   _mm256_loadu_ps(c.b.data() + n * CO + cb * 8)));
        const __m256 gate = _mm256_min_ps(_mm256_max_ps(_mm256_add_ps(t, _mm256_set1_ps(3.0f)), _mm256_setzero_ps()),
                                          _mm256_set1_ps(6.0f));
        r[cb] = _mm256_add_ps(v, _mm256_div_ps(_mm256_mul_ps(t, gate), _mm256_set1_ps(6.0f)));
        vmax = _mm256_max_ps(vmax, r[cb]);
      }
      const float mx = hmax(vmax);
      __m256 vsum = _mm256_setzero_ps();
      for (std::int64_t cb = 0; cb < CB; ++cb) vsum = _mm256_add_ps(vsum, exp_ps(_mm256_sub_ps(r[cb], _mm256_set1_ps(mx))));
      y[np] = mx + std::log(hsum(vsum));
    }
  }
}
