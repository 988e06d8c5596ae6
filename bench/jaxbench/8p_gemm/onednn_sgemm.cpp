// 8p_gemm through oneDNN 2.6: one f32 matmul primitive C = A·B (all row-major), the yardstick
// for the hand-written expert.cpp. The engine, stream, memory objects and primitive are built
// once on the first call; later calls only point the memory objects at the caller's buffers.
#include <dnnl.hpp>

#include "kforge_task.h"

namespace {

using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;

struct Matmul {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  dnnl::memory::desc a_md{{task::M, task::K}, dt::f32, tag::ab};
  dnnl::memory::desc b_md{{task::K, task::N}, dt::f32, tag::ab};
  dnnl::memory::desc c_md{{task::M, task::N}, dt::f32, tag::ab};
  dnnl::matmul prim{dnnl::matmul::primitive_desc(dnnl::matmul::desc(a_md, b_md, c_md), engine)};
  dnnl::memory a{a_md, engine, nullptr};
  dnnl::memory b{b_md, engine, nullptr};
  dnnl::memory c{c_md, engine, nullptr};
};

Matmul& matmul() {
  static Matmul m;
  return m;
}

}  // namespace

extern "C" void kernel(const float* a, const float* b, float* c) {
  Matmul& m = matmul();
  // oneDNN only reads from the source and weights memories; the const_cast never leads to a write.
  m.a.set_data_handle(const_cast<float*>(a));
  m.b.set_data_handle(const_cast<float*>(b));
  m.c.set_data_handle(c);
  m.prim.execute(m.stream, {{DNNL_ARG_SRC, m.a}, {DNNL_ARG_WEIGHTS, m.b}, {DNNL_ARG_DST, m.c}});
  m.stream.wait();
}
