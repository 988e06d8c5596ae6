// y = relu(conv2d(x, W) + conv_bias) + bias: the VALID convolution by cuDNN (NCHW, FP32 math:
// no TF32, the tolerance is FP32's), with cuDNN's fastest algorithm for these shapes chosen once,
// then one elementwise pass for the bias, the ReLU and the second bias.
#include <cudnn.h>

#include <cstdio>

#include "kforge_task.h"

namespace {

constexpr long long OH = task::H - task::KS + 1, OW = task::W - task::KS + 1;

void check(cudnnStatus_t s, const char* what) {
  if (s != CUDNN_STATUS_SUCCESS) std::fprintf(stderr, "cuDNN %s: %s\n", what, cudnnGetErrorString(s));
}

__global__ void epilogue(float* __restrict__ y, const float* __restrict__ conv_bias,
                         const float* __restrict__ bias) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= task::N * task::Cout * OH * OW) return;
  const long long c = (i / (OH * OW)) % task::Cout;
  y[i] = fmaxf(y[i] + conv_bias[c], 0.0f) + bias[c];
}

struct Conv {
  cudnnHandle_t handle = nullptr;
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  cudnnConvolutionFwdAlgo_t algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
  void* workspace = nullptr;
  size_t workspace_bytes = 0;

  Conv() {
    using namespace task;
    check(cudnnCreate(&handle), "create");
    cudnnCreateTensorDescriptor(&x);
    cudnnCreateTensorDescriptor(&y);
    cudnnCreateFilterDescriptor(&w);
    cudnnCreateConvolutionDescriptor(&conv);
    cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, N, Cin, H, W);
    cudnnSetTensor4dDescriptor(y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, N, Cout, OH, OW);
    cudnnSetFilter4dDescriptor(w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, Cout, Cin, KS, KS);
    cudnnSetConvolution2dDescriptor(conv, 0, 0, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION,
                                    CUDNN_DATA_FLOAT);
    cudnnSetConvolutionMathType(conv, CUDNN_FMA_MATH);
    cudnnConvolutionFwdAlgoPerf_t perf[8];
    int found = 0;
    check(cudnnGetConvolutionForwardAlgorithm_v7(handle, x, w, conv, y, 8, &found, perf),
          "algorithm");
    for (int i = 0; i < found; ++i)
      if (perf[i].status == CUDNN_STATUS_SUCCESS && perf[i].mathType == CUDNN_FMA_MATH) {
        algo = perf[i].algo;
        break;
      }
    cudnnGetConvolutionForwardWorkspaceSize(handle, x, w, conv, y, algo, &workspace_bytes);
    if (workspace_bytes) cudaMalloc(&workspace, workspace_bytes);
  }
};

}  // namespace

extern "C" void kernel(const float* x, const float* weight, const float* conv_bias,
                       const float* bias, float* y, cudaStream_t stream) {
  static Conv c;
  cudnnSetStream(c.handle, stream);
  const float one = 1.0f, zero = 0.0f;
  check(cudnnConvolutionForward(c.handle, &one, c.x, x, c.w, weight, c.conv, c.algo, c.workspace,
                                c.workspace_bytes, &zero, c.y, y),
        "forward");
  const long long n = task::N * task::Cout * OH * OW;
  epilogue<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(y, conv_bias, bias);
}
