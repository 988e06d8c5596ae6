// Gemm + GroupNorm + Min + BiasAdd: one oneDNN matmul (reading the (out, in) weight as Wᵀ in place,
// the linear bias riding in it) into a scratch buffer, then a single fused pass per row: each group
// of N/G features is normalized in registers, affine-transformed and folded into the row minimum,
// so no normalized value is ever stored. The outer sum min[i] + bias[c] is written last.
#include <dnnl.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "kforge_task.h"

namespace {

using dnnl::memory;
using tag = memory::format_tag;
using dt = memory::data_type;

constexpr std::int64_t GS = task::N / task::G;

struct Fused {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  memory::desc src{{task::M, task::K}, dt::f32, tag::ab};
  memory::desc weights{{task::K, task::N}, dt::f32, tag::ba};  // (K, N) logical, stored (N, K)
  memory::desc bias{{1, task::N}, dt::f32, tag::ab};
  memory::desc dst{{task::M, task::N}, dt::f32, tag::ab};
  dnnl::matmul matmul{dnnl::matmul::primitive_desc(dnnl::matmul::desc(src, weights, bias, dst), engine)};
  std::vector<float> h = std::vector<float>(task::M * task::N);
  std::vector<float> row_min = std::vector<float>(task::M);
};

// The minimum over one row of gn_weight·(h − mean_g)/sqrt(var_g + eps) + gn_bias.
float normalized_row_min(const float* h, const float* gn_weight, const float* gn_bias) {
  float m = std::numeric_limits<float>::infinity();
  for (std::int64_t g = 0; g < task::G; ++g) {
    const float* hg = h + g * GS;
    float sum = 0;
#pragma omp simd reduction(+ : sum)
    for (std::int64_t t = 0; t < GS; ++t) sum += hg[t];
    const float mean = sum / GS;
    float sq = 0;
#pragma omp simd reduction(+ : sq)
    for (std::int64_t t = 0; t < GS; ++t) sq += (hg[t] - mean) * (hg[t] - mean);
    const float inv = 1.0f / std::sqrt(sq / GS + task::eps);
#pragma omp simd reduction(min : m)
    for (std::int64_t t = 0; t < GS; ++t)
      m = std::min(m, (hg[t] - mean) * inv * gn_weight[g * GS + t] + gn_bias[g * GS + t]);
  }
  return m;
}

}  // namespace

extern "C" void kernel(const float* x, const float* weight, const float* linear_bias, const float* gn_weight,
                       const float* gn_bias, const float* bias, float* y) {
  using namespace task;
  static Fused f;  // built once (oneDNN generates its kernels here), reused every call
  memory src(f.src, f.engine, const_cast<float*>(x));
  memory wei(f.weights, f.engine, const_cast<float*>(weight));
  memory b(f.bias, f.engine, const_cast<float*>(linear_bias));
  memory dst(f.dst, f.engine, f.h.data());
  f.matmul.execute(f.stream, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_BIAS, b}, {DNNL_ARG_DST, dst}});
  f.stream.wait();
  float* row_min = f.row_min.data();
  const float* h = f.h.data();
#pragma omp parallel
  {
#pragma omp for schedule(static)
    for (std::int64_t i = 0; i < M; ++i) row_min[i] = normalized_row_min(h + i * N, gn_weight, gn_bias);
#pragma omp for schedule(static)
    for (std::int64_t c = 0; c < N; ++c)
#pragma omp simd
      for (std::int64_t i = 0; i < M; ++i) y[c * M + i] = row_min[i] + bias[c];
  }
}
