#pragma once
// Element types a task may declare, and their C spelling in the kernel ABI.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace kforge::core {

enum class DType { f32, f64, i32, i64 };

std::optional<DType> parse_dtype(std::string_view name);
std::string_view dtype_name(DType t);
std::string_view dtype_c_type(DType t);  // "float", "double", "int32_t", "int64_t"
std::size_t dtype_size(DType t);
bool dtype_is_float(DType t);
// NumPy's descriptor for .npy dumps: "<f4", "<f8", "<i4", "<i8".
std::string_view dtype_npy_descr(DType t);

}  // namespace kforge::core
