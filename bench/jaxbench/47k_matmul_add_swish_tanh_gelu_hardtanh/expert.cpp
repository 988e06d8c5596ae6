// Matmul + Add + Swish + Tanh + GELU + Hardtanh in one oneDNN matmul: the bias and add_value ride
// in the matmul's bias (summed once per call), and the epilogue is four eltwise post-ops (swish,
// tanh, tanh-form GELU, clip) applied to each tile while it is still in cache, instead of six
// passes over the output.
#include <dnnl.hpp>

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
  memory::desc bias{{1, task::N}, dt::f32, tag::ab};
  memory::desc dst{{task::M, task::N}, dt::f32, tag::ab};
  dnnl::matmul prim;
  std::vector<float> total_bias = std::vector<float>(task::N);

  Fused() {
    dnnl::post_ops ops;
    ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_swish, 1.0f, 0.0f);  // v·sigmoid(1·v)
    ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_tanh, 0.0f, 0.0f);
    ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_gelu_tanh, 0.0f, 0.0f);
    ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_clip, -1.0f, 1.0f);
    dnnl::primitive_attr attr;
    attr.set_post_ops(ops);
    prim = dnnl::matmul(dnnl::matmul::primitive_desc(dnnl::matmul::desc(src, weights, bias, dst), attr, engine));
  }
};

}  // namespace

extern "C" void kernel(const float* x, const float* weight, const float* bias, const float* add_value, float* y) {
  static Fused f;  // built once (oneDNN generates its kernels here), reused every call
  for (std::int64_t j = 0; j < task::N; ++j) f.total_bias[j] = bias[j] + add_value[j];
  memory src(f.src, f.engine, const_cast<float*>(x));
  memory wei(f.weights, f.engine, const_cast<float*>(weight));
  memory b(f.bias, f.engine, f.total_bias.data());
  memory dst(f.dst, f.engine, y);
  f.prim.execute(f.stream, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_BIAS, b}, {DNNL_ARG_DST, dst}});
  f.stream.wait();
}
