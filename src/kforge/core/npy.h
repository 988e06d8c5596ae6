#pragma once
// Writes NumPy .npy files (format 1.0), so inputs and outputs of any evaluation can be checked
// with NumPy, JAX or PyTorch (`kforge eval --dump DIR`).

#include <cstdint>
#include <filesystem>
#include <vector>

#include "kforge/core/dtype.h"
#include "kforge/core/result.h"

namespace kforge::core {

Status write_npy(const std::filesystem::path& path, DType dtype, const std::vector<std::int64_t>& shape, const void* data);

}  // namespace kforge::core
