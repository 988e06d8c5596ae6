// Conv2D + ReLU + BiasAdd as PyTorch eager runs it on a GPU: the ops of baseline.cpp, one by one
// (conv2d with its bias through cuDNN, relu, add), each one of PyTorch's CUDA kernels, on
// kforge's stream. cuDNN's TF32 is turned off: PyTorch allows it for convolutions by default,
// but the task's tolerance is FP32's, and the candidate is compared with this partner's outputs.
#include <kforge/torch_cuda_view.h>

#include "kforge_task.h"

extern "C" void kernel(const float* x, const float* weight, const float* conv_bias,
                       const float* bias, float* y, cudaStream_t stream) {
  using namespace task;
  at::globalContext().setAllowTF32CuDNN(false);
  auto guard = kforge_torch_cuda::on_stream(stream);
  auto X = kforge_torch_cuda::view(x, {N, Cin, H, W});
  auto Wt = kforge_torch_cuda::view(weight, {Cout, Cin, KS, KS});
  auto Y = kforge_torch_cuda::view(y, {N, Cout, H - KS + 1, W - KS + 1});
  auto conv = at::conv2d(X, Wt, kforge_torch_cuda::view(conv_bias, {Cout}));
  auto act = at::relu(conv);
  at::add_out(Y, act, kforge_torch_cuda::view(bias, {Cout, 1, 1}));
}
