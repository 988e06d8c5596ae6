// Gemm + Sigmoid + Gemm + LogSumExp with oneDNN: the first matmul carries b1 and the sigmoid as a
// post-op, the second carries b2; the row max is one vectorised pass, and a binary primitive
// computes exp(v − rowmax) with the exp as its post-op, so no scalar exp runs; a last pass sums
// each row and takes rowmax + log(sum).
#include <dnnl.hpp>

#include <algorithm>
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
  memory::desc x{{task::M, task::I}, dt::f32, tag::ab};
  memory::desc w1{{task::I, task::H}, dt::f32, tag::ba};  // W1 is (H, I): W1ᵀ read in place
  memory::desc b1{{1, task::H}, dt::f32, tag::ab};
  memory::desc hidden{{task::M, task::H}, dt::f32, tag::ab};
  memory::desc w2{{task::H, task::O}, dt::f32, tag::ba};  // W2 is (O, H)
  memory::desc b2{{1, task::O}, dt::f32, tag::ab};
  memory::desc out{{task::M, task::O}, dt::f32, tag::ab};
  memory::desc col{{task::M, 1}, dt::f32, tag::ab};
  dnnl::matmul first, second;
  dnnl::binary shifted_exp;
  std::vector<float> s = std::vector<float>(task::M * task::H);
  std::vector<float> v = std::vector<float>(task::M * task::O);
  std::vector<float> e = std::vector<float>(task::M * task::O);
  std::vector<float> row_max = std::vector<float>(task::M);

  Fused() {
    dnnl::post_ops sigmoid;
    sigmoid.append_eltwise(1.0f, dnnl::algorithm::eltwise_logistic, 0.0f, 0.0f);
    dnnl::primitive_attr first_attr;
    first_attr.set_post_ops(sigmoid);
    first = dnnl::matmul(dnnl::matmul::primitive_desc(dnnl::matmul::desc(x, w1, b1, hidden), first_attr, engine));
    second = dnnl::matmul(dnnl::matmul::primitive_desc(dnnl::matmul::desc(hidden, w2, b2, out), engine));
    dnnl::post_ops exp;
    exp.append_eltwise(1.0f, dnnl::algorithm::eltwise_exp, 0.0f, 0.0f);
    dnnl::primitive_attr exp_attr;
    exp_attr.set_post_ops(exp);
    shifted_exp = dnnl::binary(
        dnnl::binary::primitive_desc(dnnl::binary::desc(dnnl::algorithm::binary_sub, out, col, out), exp_attr, engine));
  }
};

}  // namespace

extern "C" void kernel(const float* x, const float* w1, const float* b1, const float* w2, const float* b2, float* y) {
  using namespace task;
  static Fused f;  // built once (oneDNN generates its kernels here), reused every call
  memory xm(f.x, f.engine, const_cast<float*>(x));
  memory w1m(f.w1, f.engine, const_cast<float*>(w1));
  memory b1m(f.b1, f.engine, const_cast<float*>(b1));
  memory w2m(f.w2, f.engine, const_cast<float*>(w2));
  memory b2m(f.b2, f.engine, const_cast<float*>(b2));
  memory sm(f.hidden, f.engine, f.s.data());
  memory vm(f.out, f.engine, f.v.data());
  memory em(f.out, f.engine, f.e.data());
  memory mm(f.col, f.engine, f.row_max.data());
  f.first.execute(f.stream, {{DNNL_ARG_SRC, xm}, {DNNL_ARG_WEIGHTS, w1m}, {DNNL_ARG_BIAS, b1m}, {DNNL_ARG_DST, sm}});
  f.second.execute(f.stream, {{DNNL_ARG_SRC, sm}, {DNNL_ARG_WEIGHTS, w2m}, {DNNL_ARG_BIAS, b2m}, {DNNL_ARG_DST, vm}});
  f.stream.wait();
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < M; ++i) {
    const float* row = f.v.data() + i * O;
    float m = row[0];
#pragma omp simd reduction(max : m)
    for (std::int64_t j = 0; j < O; ++j) m = std::max(m, row[j]);
    f.row_max[i] = m;
  }
  f.shifted_exp.execute(f.stream, {{DNNL_ARG_SRC_0, vm}, {DNNL_ARG_SRC_1, mm}, {DNNL_ARG_DST, em}});
  f.stream.wait();
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < M; ++i) {
    const float* row = f.e.data() + i * O;
    float sum = 0;
#pragma omp simd reduction(+ : sum)
    for (std::int64_t j = 0; j < O; ++j) sum += row[j];
    y[i] = f.row_max[i] + std::log(sum);
  }
}
