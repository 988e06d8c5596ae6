// Matmul + Swish + Sum + GroupNorm: one oneDNN matmul whose post-ops apply the swish and then add
// the bias (a binary add broadcast over rows; it follows the swish, so it cannot ride as the
// matmul's own bias), then a single in-place pass over the output that normalises each group of
// N/G features (two-pass mean and variance over 64 values held in cache) and applies the affine.
#include <dnnl.hpp>

#include <cmath>

#include "kforge_task.h"

namespace {

using dnnl::memory;
using tag = memory::format_tag;
using dt = memory::data_type;

struct Fused {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  memory::desc src{{task::M, task::K}, dt::f32, tag::ab};
  memory::desc weights{{task::K, task::N}, dt::f32, tag::ab};
  memory::desc row{{1, task::N}, dt::f32, tag::ab};
  memory::desc dst{{task::M, task::N}, dt::f32, tag::ab};
  dnnl::matmul prim;

  Fused() {
    dnnl::post_ops ops;
    ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_swish, 1.0f, 0.0f);  // v·sigmoid(1·v)
    ops.append_binary(dnnl::algorithm::binary_add, row);
    dnnl::primitive_attr attr;
    attr.set_post_ops(ops);
    prim = dnnl::matmul(dnnl::matmul::primitive_desc(dnnl::matmul::desc(src, weights, dst), attr, engine));
  }
};

}  // namespace

extern "C" void kernel(const float* x, const float* weight, const float* bias, const float* gn_weight,
                       const float* gn_bias, float* y) {
  using namespace task;
  constexpr std::int64_t GS = N / G;
  static Fused f;  // built once (oneDNN generates its kernels here), reused every call
  memory src(f.src, f.engine, const_cast<float*>(x));
  memory wei(f.weights, f.engine, const_cast<float*>(weight));
  memory b(f.row, f.engine, const_cast<float*>(bias));
  memory dst(f.dst, f.engine, y);
  f.prim.execute(f.stream, {{DNNL_ARG_SRC, src},
                            {DNNL_ARG_WEIGHTS, wei},
                            {DNNL_ARG_DST, dst},
                            {DNNL_ARG_ATTR_MULTIPLE_POST_OP(1) | DNNL_ARG_SRC_1, b}});
  f.stream.wait();
#pragma omp parallel for schedule(static)
  for (std::int64_t r = 0; r < M * G; ++r) {
    float* v = y + r * GS;
    const std::int64_t c0 = (r % G) * GS;
    float sum = 0;
#pragma omp simd reduction(+ : sum)
    for (std::int64_t j = 0; j < GS; ++j) sum += v[j];
    const float mean = sum / GS;
    float sq = 0;
#pragma omp simd reduction(+ : sq)
    for (std::int64_t j = 0; j < GS; ++j) sq += (v[j] - mean) * (v[j] - mean);
    const float inv_std = 1.0f / std::sqrt(sq / GS + eps);
#pragma omp simd
    for (std::int64_t j = 0; j < GS; ++j) v[j] = (v[j] - mean) * inv_std * gn_weight[c0 + j] + gn_bias[c0 + j];
  }
}
