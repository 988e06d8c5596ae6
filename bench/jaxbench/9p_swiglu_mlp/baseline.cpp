// SwiGLU MLP as PyTorch eager runs it: the ops of JAXBench's workload, one by one (three
// matmuls through OpenBLAS, silu and the product as separate passes).
#include <ATen/ATen.h>
#include <kforge/torch_view.h>

#include "kforge_task.h"

extern "C" void kernel(const float* x, const float* gate_kernel, const float* up_kernel, const float* down_kernel,
                       float* out) {
  using namespace task;
  auto X = kforge_torch::view(x, {B, S, E});
  auto Gate = kforge_torch::view(gate_kernel, {E, M});
  auto Up = kforge_torch::view(up_kernel, {E, M});
  auto Down = kforge_torch::view(down_kernel, {M, E});
  auto Out = kforge_torch::view(out, {B, S, E});
  auto gate = at::silu(at::matmul(X, Gate));
  auto up = at::matmul(X, Up);
  at::matmul_out(Out, gate * up, Down);
}
