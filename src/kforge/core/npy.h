#pragma once
// Writes NumPy .npy files (format 1.0), so inputs and outputs of any evaluation can be checked
// with NumPy, JAX or PyTorch (`kforge eval --dump DIR`), and reads back what Python
// implementations of a task write (C order, little-endian, the dtypes kforge knows).

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "kforge/core/dtype.h"
#include "kforge/core/result.h"

namespace kforge::core {

struct NpyArray {
  DType dtype = DType::f32;
  std::vector<std::int64_t> shape;
  std::string data;  // numel · dtype_size bytes
};

Status write_npy(const std::filesystem::path& path, DType dtype,
                 const std::vector<std::int64_t>& shape, const void* data);
// Errors name the file and what is wrong with it (Fortran order, an unknown dtype, a short file).
Result<NpyArray> read_npy(const std::filesystem::path& path);

}  // namespace kforge::core
