// Matmul + Scaling + ResidualAdd in one oneDNN matmul: the bias rides in the matmul and
// h·0.5 + h is one eltwise post-op, linear(1 + 0.5) (h·0.5 is exact in f32, so both round the
// same), applied to each tile while it is still in cache instead of in three passes.
#include <dnnl.hpp>

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

  Fused() {
    dnnl::post_ops ops;
    ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_linear, 1.0f + task::scaling_factor, 0.0f);
    dnnl::primitive_attr attr;
    attr.set_post_ops(ops);
    prim = dnnl::matmul(dnnl::matmul::primitive_desc(dnnl::matmul::desc(src, weights, bias, dst), attr, engine));
  }
};

}  // namespace

extern "C" void kernel(const float* x, const float* weight, const float* bias, float* y) {
  static Fused f;  // built once (oneDNN generates its kernels here), reused every call
  memory src(f.src, f.engine, const_cast<float*>(x));
  memory wei(f.weights, f.engine, const_cast<float*>(weight));
  memory b(f.bias, f.engine, const_cast<float*>(bias));
  memory dst(f.dst, f.engine, y);
  f.prim.execute(f.stream, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_BIAS, b}, {DNNL_ARG_DST, dst}});
  f.stream.wait();
}
