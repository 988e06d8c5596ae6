#pragma once
// For CUDA baselines: kforge's device buffers as PyTorch CUDA tensors without copying, and
// kforge's stream made PyTorch's current stream for the call, so PyTorch's kernels run on the
// stream kforge hands the kernel (and inside the device-wide synchronization it times).
#include <ATen/ATen.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

#include <cstdint>

namespace kforge_torch_cuda {

template <typename T>
inline at::Tensor view(const T* data, at::IntArrayRef shape) {
  return at::from_blob(
      const_cast<T*>(data), shape,
      at::TensorOptions().dtype(c10::CppTypeToScalarType<T>::value).device(at::kCUDA, 0));
}

// PyTorch keeps its own current stream per device; the guard sets kforge's for its lifetime.
inline c10::cuda::CUDAStreamGuard on_stream(cudaStream_t stream) {
  return c10::cuda::CUDAStreamGuard(c10::cuda::getStreamFromExternal(stream, 0));
}

}  // namespace kforge_torch_cuda
