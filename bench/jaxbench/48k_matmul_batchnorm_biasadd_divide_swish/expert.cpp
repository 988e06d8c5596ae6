// Matmul + BatchNorm (eval) + BiasAdd + Divide + Swish in one oneDNN matmul. The linear bias,
// BatchNorm, scalar bias and divide fold into one per-feature affine map a·(x·W) + c (computed once
// per call), applied as binary mul and add post-ops, then swish as an eltwise post-op: each tile
// is finished while still in cache, instead of nine passes over the output.
#include <dnnl.hpp>

#include <cmath>
#include <vector>

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
  memory::desc per_feature{{1, task::N}, dt::f32, tag::ab};
  memory::desc dst{{task::M, task::N}, dt::f32, tag::ab};
  dnnl::matmul prim;
  std::vector<float> a = std::vector<float>(task::N), c = std::vector<float>(task::N);

  Fused() {
    dnnl::post_ops ops;
    ops.append_binary(dnnl::algorithm::binary_mul, per_feature);
    ops.append_binary(dnnl::algorithm::binary_add, per_feature);
    ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_swish, 1.0f, 0.0f);  // v·sigmoid(1·v)
    dnnl::primitive_attr attr;
    attr.set_post_ops(ops);
    prim = dnnl::matmul(dnnl::matmul::primitive_desc(dnnl::matmul::desc(src, weights, dst), attr, engine));
  }
};

}  // namespace

extern "C" void kernel(const float* x, const float* weight, const float* linear_bias, const float* bn_scale,
                       const float* bn_bias, const float* bn_mean, const float* bn_var, const float* bias, float* y) {
  using namespace task;
  static Fused f;  // built once (oneDNN generates its kernels here), reused every call
  // (bn_scale·(x·W + lb − mean)/sqrt(var + eps) + bn_bias + bias)/divide_value = a·(x·W) + c
  for (std::int64_t j = 0; j < N; ++j) {
    const float s = bn_scale[j] / std::sqrt(bn_var[j] + bn_eps) / static_cast<float>(divide_value);
    f.a[j] = s;
    f.c[j] = s * (linear_bias[j] - bn_mean[j]) + (bn_bias[j] + bias[0]) / static_cast<float>(divide_value);
  }
  memory src(f.src, f.engine, const_cast<float*>(x));
  memory wei(f.weights, f.engine, const_cast<float*>(weight));
  memory a(f.per_feature, f.engine, f.a.data());
  memory c(f.per_feature, f.engine, f.c.data());
  memory dst(f.dst, f.engine, y);
  f.prim.execute(f.stream, {{DNNL_ARG_SRC, src},
                            {DNNL_ARG_WEIGHTS, wei},
                            {DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, a},
                            {DNNL_ARG_ATTR_MULTIPLE_POST_OP(1) | DNNL_ARG_SRC_1, c},
                            {DNNL_ARG_DST, dst}});
  f.stream.wait();
}
