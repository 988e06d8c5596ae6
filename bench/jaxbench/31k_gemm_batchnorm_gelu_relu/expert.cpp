// Gemm + BatchNorm + GELU + ReLU in three passes instead of about ten: a oneDNN matmul (bias
// included) writes h; one pass over h gathers each column's mean and biased variance (in double,
// blocks of columns in parallel); then one oneDNN binary primitive computes
// relu(gelu_tanh(h·scale + shift)) with scale = bn_weight/sqrt(var + eps) and
// shift = bn_bias − mean·scale, the add, GELU and ReLU riding as post-ops.
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
  memory::desc row{{1, task::N}, dt::f32, tag::ab};
  memory::desc full{{task::M, task::N}, dt::f32, tag::ab};
  dnnl::matmul gemm;
  dnnl::binary epilogue;
  std::vector<float> h = std::vector<float>(task::M * task::N);
  std::vector<float> scale = std::vector<float>(task::N), shift = std::vector<float>(task::N);

  Fused() {
    gemm = dnnl::matmul(dnnl::matmul::primitive_desc(dnnl::matmul::desc(src, weights, row, full), engine));
    dnnl::post_ops ops;
    ops.append_binary(dnnl::algorithm::binary_add, row);
    ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_gelu_tanh, 0.0f, 0.0f);
    ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
    dnnl::primitive_attr attr;
    attr.set_post_ops(ops);
    epilogue = dnnl::binary(dnnl::binary::primitive_desc(dnnl::binary::desc(dnnl::algorithm::binary_mul, full, row, full), attr, engine));
  }
};

}  // namespace

extern "C" void kernel(const float* x, const float* gemm_weight, const float* gemm_bias, const float* bn_weight,
                       const float* bn_bias, float* y) {
  using namespace task;
  static Fused f;  // built once (oneDNN generates its kernels here), reused every call
  memory src(f.src, f.engine, const_cast<float*>(x));
  memory wei(f.weights, f.engine, const_cast<float*>(gemm_weight));
  memory b(f.row, f.engine, const_cast<float*>(gemm_bias));
  memory h(f.full, f.engine, f.h.data());
  f.gemm.execute(f.stream, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_BIAS, b}, {DNNL_ARG_DST, h}});
  f.stream.wait();

  // Column statistics and the folded affine, a block of 64 columns per iteration: two passes over
  // the block's rows (mean, then squared deviations) in double, vectorised along the columns.
  const float* hv = f.h.data();
#pragma omp parallel for schedule(static)
  for (std::int64_t jb = 0; jb < N; jb += 64) {
    const std::int64_t nj = N - jb < 64 ? N - jb : 64;
    double mean[64] = {}, sq[64] = {};
    for (std::int64_t i = 0; i < M; ++i)
#pragma omp simd
      for (std::int64_t j = 0; j < nj; ++j) mean[j] += hv[i * N + jb + j];
    for (std::int64_t j = 0; j < nj; ++j) mean[j] /= M;
    for (std::int64_t i = 0; i < M; ++i)
#pragma omp simd
      for (std::int64_t j = 0; j < nj; ++j) sq[j] += (hv[i * N + jb + j] - mean[j]) * (hv[i * N + jb + j] - mean[j]);
    for (std::int64_t j = 0; j < nj; ++j) {
      const double scale = bn_weight[jb + j] / std::sqrt(sq[j] / M + f64::eps);
      f.scale[jb + j] = static_cast<float>(scale);
      f.shift[jb + j] = static_cast<float>(bn_bias[jb + j] - mean[j] * scale);
    }
  }

  memory sc(f.row, f.engine, f.scale.data());
  memory sh(f.row, f.engine, f.shift.data());
  memory dst(f.full, f.engine, y);
  f.epilogue.execute(f.stream, {{DNNL_ARG_SRC_0, h},
                                {DNNL_ARG_SRC_1, sc},
                                {DNNL_ARG_DST, dst},
                                {DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, sh}});
  f.stream.wait();
}
