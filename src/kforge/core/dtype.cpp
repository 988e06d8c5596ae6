// Element types a task may declare.
#include "kforge/core/dtype.h"

namespace kforge::core {

std::optional<DType> parse_dtype(std::string_view name) {
  if (name == "f32") return DType::f32;
  if (name == "f64") return DType::f64;
  if (name == "i32") return DType::i32;
  if (name == "i64") return DType::i64;
  return std::nullopt;
}

std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::f32:
      return "f32";
    case DType::f64:
      return "f64";
    case DType::i32:
      return "i32";
    case DType::i64:
      return "i64";
  }
  return "?";
}

std::string_view dtype_c_type(DType t) {
  switch (t) {
    case DType::f32:
      return "float";
    case DType::f64:
      return "double";
    case DType::i32:
      return "int32_t";
    case DType::i64:
      return "int64_t";
  }
  return "?";
}

std::size_t dtype_size(DType t) { return (t == DType::f32 || t == DType::i32) ? 4 : 8; }

bool dtype_is_float(DType t) { return t == DType::f32 || t == DType::f64; }

std::string_view dtype_npy_descr(DType t) {
  switch (t) {
    case DType::f32:
      return "<f4";
    case DType::f64:
      return "<f8";
    case DType::i32:
      return "<i4";
    case DType::i64:
      return "<i8";
  }
  return "?";
}

}  // namespace kforge::core
