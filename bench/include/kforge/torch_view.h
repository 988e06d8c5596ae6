#pragma once
// For baselines: wrap kforge's buffers as ATen tensors without copying.
#include <ATen/ATen.h>

#include <cstdint>

namespace kforge_torch {

template <typename T>
inline at::Tensor view(const T* data, at::IntArrayRef shape) {
  return at::from_blob(const_cast<T*>(data), shape,
                       at::TensorOptions().dtype(c10::CppTypeToScalarType<T>::value));
}

}  // namespace kforge_torch
