// The .npy header: magic, version 1.0, a little-endian header length, a Python dict literal
// padded with spaces so the data starts 64-byte aligned.
#include "kforge/core/npy.h"

#include <fmt/format.h>

#include "kforge/core/fs.h"

namespace kforge::core {

Status write_npy(const std::filesystem::path& path, DType dtype, const std::vector<std::int64_t>& shape, const void* data) {
  std::string dims;
  for (auto d : shape) dims += std::to_string(d) + ",";
  if (shape.size() > 1) dims.pop_back();
  std::string dict = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': ({}), }}", dtype_npy_descr(dtype), dims);
  std::size_t total = 10 + dict.size() + 1;
  dict += std::string((64 - total % 64) % 64, ' ') + "\n";
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  auto len = static_cast<std::uint16_t>(dict.size());
  out += static_cast<char>(len & 0xff);
  out += static_cast<char>(len >> 8);
  out += dict;
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  out.append(static_cast<const char*>(data), static_cast<std::size_t>(n) * dtype_size(dtype));
  return write_atomic(path, out);
}

}  // namespace kforge::core
