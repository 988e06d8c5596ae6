// Matmul + Scale + ResidualAdd + Clamp + LogSumExp + Mish with the whole elementwise chain in one
// oneDNN matmul. The clamp bounds every entry by 10, so the logsumexp needs no row max:
//   z = 10 + log Σ_j exp(clip(4·v_ij, −10, 10) − 10) = 10 + log Σ_j exp(clip(4·v_ij − 10, −20, 0)),
// and the post-ops linear(4, −10), clip(−20, 0), exp produce exactly those terms (in [e^−20, 1],
// no overflow or denormals). A short pass then sums each row and applies z·mish(z) to M scalars.
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
  memory::desc weights{{task::K, task::N}, dt::f32, tag::ba};  // W is (N, K): Wᵀ read in place
  memory::desc bias{{1, task::N}, dt::f32, tag::ab};
  memory::desc dst{{task::M, task::N}, dt::f32, tag::ab};
  dnnl::matmul prim;
  std::vector<float> terms = std::vector<float>(task::M * task::N);  // exp(clipped − 10)

  Fused() {
    constexpr float top = static_cast<float>(task::clamp_max);
    constexpr float bottom = static_cast<float>(task::clamp_min);
    dnnl::post_ops ops;
    ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_linear, 2.0f * task::scale_factor, -top);
    ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_clip, bottom - top, 0.0f);
    ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_exp, 0.0f, 0.0f);
    dnnl::primitive_attr attr;
    attr.set_post_ops(ops);
    prim = dnnl::matmul(dnnl::matmul::primitive_desc(dnnl::matmul::desc(src, weights, bias, dst), attr, engine));
  }
};

}  // namespace

extern "C" void kernel(const float* x, const float* weight, const float* bias, float* y) {
  using namespace task;
  static Fused f;  // built once (oneDNN generates its kernels here), reused every call
  memory src(f.src, f.engine, const_cast<float*>(x));
  memory wei(f.weights, f.engine, const_cast<float*>(weight));
  memory b(f.bias, f.engine, const_cast<float*>(bias));
  memory dst(f.dst, f.engine, f.terms.data());
  f.prim.execute(f.stream, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_BIAS, b}, {DNNL_ARG_DST, dst}});
  f.stream.wait();
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < M; ++i) {
    const float* row = f.terms.data() + i * N;
    float sum = 0;
#pragma omp simd reduction(+ : sum)
    for (std::int64_t j = 0; j < N; ++j) sum += row[j];
    const float z = static_cast<float>(clamp_max) + std::log(sum);
    const float softplus = std::fmax(z, 0.0f) + std::log1p(std::exp(-std::fabs(z)));
    y[i] = z * (z * std::tanh(softplus));
  }
}
