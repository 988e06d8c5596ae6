// Conv2d → GELU → global average pool: oneDNN's convolution (bias fused) writes its output in the
// 8-channel-blocked layout nChw8c (channels padded to a multiple of 8), and one pass per block of
// 8 channels applies the tanh-form GELU in AVX2 registers and sums each channel over the pixels
// (float per image row, double across rows). The GELU'd activations are never stored.
#include <dnnl.hpp>
#include <immintrin.h>

#include <cmath>

#include "kforge_task.h"
#include "kforge/simd_math.h"

namespace {

using kforge::simd::gelu_tanh_ps;

using dnnl::memory;
using tag = memory::format_tag;
using dt = memory::data_type;

constexpr std::int64_t OH = task::H - task::KS + 1, OW = task::W - task::KS + 1, PLANE = OH * OW;
constexpr std::int64_t CB = (task::CO + 7) / 8;  // channel blocks of nChw8c

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

}  // namespace

extern "C" void kernel(const float* x, const float* weight, const float* bias, float* y) {
  using namespace task;
  static Conv c;  // built once (oneDNN generates its kernels here), reused every call
  memory x_mem(c.src_user, c.engine, const_cast<float*>(x));
  memory w_mem(c.wei_user, c.engine, const_cast<float*>(weight));
  memory b_mem(c.bias, c.engine, const_cast<float*>(bias));
  c.to_src.execute(c.stream, x_mem, c.src);
  c.to_wei.execute(c.stream, w_mem, c.wei);
  c.conv.execute(c.stream, {{DNNL_ARG_SRC, c.src}, {DNNL_ARG_WEIGHTS, c.wei}, {DNNL_ARG_BIAS, b_mem}, {DNNL_ARG_DST, c.dst}});
  c.stream.wait();
  const float* d = static_cast<const float*>(c.dst.get_data_handle());

#pragma omp parallel for schedule(dynamic)
  for (std::int64_t nb = 0; nb < NB * CB; ++nb) {
    const float* block = d + nb * PLANE * 8;
    double total[8] = {};
    for (std::int64_t r = 0; r < OH; ++r) {
      __m256 acc = _mm256_setzero_ps();
      for (std::int64_t p = r * OW; p < (r + 1) * OW; ++p) acc = _mm256_add_ps(acc, gelu_tanh_ps(_mm256_loadu_ps(block + p * 8)));
      alignas(32) float lanes[8];
      _mm256_store_ps(lanes, acc);
      for (int l = 0; l < 8; ++l) total[l] += lanes[l];
    }
    const std::int64_t n = nb / CB, c0 = nb % CB * 8;
    for (std::int64_t l = 0; l < 8 && c0 + l < CO; ++l) y[n * CO + c0 + l] = static_cast<float>(total[l] / PLANE);
  }
}
